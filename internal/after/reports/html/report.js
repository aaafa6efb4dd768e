// skewtest report: filters over the matrix, and the pairing view drawn on demand from the
// data embedded once in #skewtest-data (see reports/html.go, pageData). Data is only ever
// written as text nodes, never as HTML.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("skewtest-data").textContent);
  const S = data.s, P = data.p, W = 11; // W: numbers per timeline frame (timelineWidth)
  const byId = new Map(P.map((p) => [String(p.id), p]));
  const cells = Array.from(document.querySelectorAll("a.cell[data-id]"));
  const cellById = new Map(cells.map((c) => [c.dataset.id, c]));
  const view = document.getElementById("view");
  const statusBoxes = Array.from(document.querySelectorAll("#status-filter input[name=status]"));
  const kindSelect = document.getElementById("kind-filter");
  const statusText = { "expected-refusal": "expected refusal" };

  // el makes an element: attributes from attrs, children appended (strings as text).
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") e.className = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat(Infinity)) {
      if (c === undefined || c === null || c === false) continue;
      e.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return e;
  }

  function fmtUs(us) {
    if (us < 1000) return us + " µs";
    if (us < 1e6) return (us / 1000).toFixed(1) + " ms";
    return (us / 1e6).toFixed(2) + " s";
  }

  function label(p) {
    return "host " + p.h + " × " + p.k + " client " + p.c + " · " + p.j;
  }

  function badge(status) {
    return el("span", { class: "badge s-" + status }, statusText[status] || status);
  }

  // Filters.
  function filterState() {
    const statuses = new Set(statusBoxes.filter((b) => b.checked || b.disabled).map((b) => b.value));
    return { statuses, kind: kindSelect.value, active: statusBoxes.some((b) => !b.checked && !b.disabled) || kindSelect.value !== "" };
  }

  function matches(p, st) {
    if (!st.statuses.has(p.st)) return false;
    return !st.kind || (p.f || []).some((f) => f.k === st.kind);
  }

  function applyFilters() {
    const st = filterState();
    let n = 0;
    for (const c of cells) {
      const ok = matches(byId.get(c.dataset.id), st);
      c.classList.toggle("dim", !ok);
      if (ok) n++;
    }
    document.getElementById("match-count").textContent = st.active ? n + " of " + P.length + " pairings match" : P.length + " pairings";
    const list = document.getElementById("list");
    const items = document.getElementById("list-items");
    items.replaceChildren();
    list.hidden = !st.active;
    if (st.active) {
      for (const p of P) {
        if (!matches(p, st)) continue;
        items.append(el("li", null, el("a", { href: "#p" + p.id }, badge(p.st), " ", label(p),
          p.f && p.f.length ? el("span", { class: "muted" }, " — " + p.f.map((f) => f.k).filter((k, i, a) => a.indexOf(k) === i).join(", ")) : null)));
      }
    }
  }
  statusBoxes.forEach((b) => b.addEventListener("change", applyFilters));
  kindSelect.addEventListener("change", applyFilters);

  // The pairing view.
  function copyButton(text, source) {
    const b = el("button", { type: "button", class: "copy", title: "copy to the clipboard" }, "copy");
    b.addEventListener("click", () => {
      const done = () => {
        b.textContent = "copied";
        b.dataset.copied = "yes"; // stays: says the copy happened after the label went back
        setTimeout(() => { b.textContent = "copy"; }, 1500);
      };
      const fallback = () => {
        const r = document.createRange();
        r.selectNodeContents(source);
        const sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(r);
        try { document.execCommand("copy"); done(); } catch (e) { b.textContent = "selected: copy it"; }
      };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
      else fallback();
    });
    return b;
  }

  function href(path) {
    return path.split("/").map(encodeURIComponent).join("/");
  }

  function stepsSection(p) {
    const rows = [];
    const steps = p.sp || [];
    const total = steps.reduce((a, s) => a + s[2], 0) || 1;
    let at = 0;
    for (const [name, done, us] of steps) {
      const bar = el("span", { style: "left:" + (100 * at / total).toFixed(2) + "%;width:" + (100 * us / total).toFixed(2) + "%" });
      at += us;
      rows.push(el("tr", { class: done ? "done" : "undone" },
        el("td", null, done ? "✓ " : "✗ ", S[name]), el("td", { class: "num" }, fmtUs(us)), el("td", { class: "track" }, bar)));
    }
    if (p.n > steps.length) {
      rows.push(el("tr", { class: "unreached" }, el("td", { colspan: 3 }, (p.n - steps.length) + " more step(s) never started")));
    }
    return el("section", { class: "steps-section" },
      el("h3", null, "Steps ", el("span", { class: "muted" }, p.cs + " of " + p.n + " completed")),
      steps.length ? el("table", { class: "steps" }, el("tbody", null, rows)) : el("p", { class: "muted" }, "No step ran."));
  }

  function detailPre(f) {
    const pre = el("pre", { class: "detail" });
    const lines = f.x.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] + (i < lines.length - 1 ? "\n" : "");
      if (f.k === "sequence-drift" && /^\+/.test(lines[i])) pre.append(el("span", { class: "ins" }, line));
      else if (f.k === "sequence-drift" && /^-/.test(lines[i])) pre.append(el("span", { class: "del" }, line));
      else pre.append(document.createTextNode(line));
    }
    return pre;
  }

  function findingsSection(p) {
    const fs = p.f || [];
    return el("section", { class: "findings" },
      el("h3", null, "Findings ", el("span", { class: "muted" }, String(fs.length))),
      fs.length ? fs.map((f) => el("div", { class: f.o ? "finding own" : "finding", "data-kind": f.k },
        el("div", null, el("span", { class: "badge s-fail" }, f.k), " ",
          f.o ? el("span", { class: "badge own", title: "its reference, " + f.o + " with itself, shows it too: not a skew" }, f.o + "'s own bug") : null, f.o ? " " : null,
          el("span", { class: "where" }, [f.s && "step " + f.s, f.d, f.fr && (f.fr + (f.fi ? " (" + f.fi + ")" : ""))].filter(Boolean).join(" · "))),
        el("p", { class: "message" }, f.m),
        f.x ? detailPre(f) : null)) : el("p", { class: "muted" }, "None."));
  }

  // fieldsText is a frame's fields for reading: indented when they are JSON (they are not
  // once cut short).
  function fieldsText(f) {
    try { return JSON.stringify(JSON.parse(f), null, 2); } catch (e) { return f; }
  }

  function framesSection(p) {
    const tl = p.tl || [];
    const n = tl.length / W;
    const section = el("section", { class: "frames-section" },
      el("h3", null, "Frames ", el("span", { class: "muted" }, n + " tapped; C>H left, H>C right; click a frame for its fields")));
    if (!n) { section.append(el("p", { class: "muted" }, "No frame was tapped.")); return section; }
    const stepInfo = new Map((p.sp || []).map(([name, done, us]) => [name, { done, us }]));
    const hits = (p.f || []).filter((f) => f.fr);
    const conns = new Set();
    for (let i = 0; i < n; i++) conns.add(tl[i * W + 1]);
    const side = ["n", "t", "name", "pl", "sz"];
    const cols = el("colgroup", null, [...side, "gap", ...side].map((c) => el("col", { class: c })));
    const sideHead = () => [el("th", { class: "num" }, "#"), el("th", { class: "num" }, "at"), el("th", null, "frame"),
      el("th", { class: "num", title: "the frame's payload" }, "payload"), el("th", { class: "num", title: "the WebSocket message" }, "message")];
    const head = el("thead", null,
      el("tr", null, el("th", { colspan: 5 }, "C>H (client to host)"), el("th"), el("th", { colspan: 5 }, "H>C (host to client)")),
      el("tr", { class: "cols" }, sideHead(), el("th"), sideHead()));
    const body = el("tbody");
    let step;
    for (let i = 0; i < n; i++) {
      const [index, conn, dir, name, stepIdx, size, us, ctl, payload, arrived, fields] = tl.slice(i * W, i * W + W);
      if (stepIdx !== step) {
        step = stepIdx;
        const info = stepInfo.get(stepIdx);
        body.append(el("tr", { class: "step" }, el("td", { colspan: 11 }, "▸ step " + (stepIdx < 0 ? "(none)" : S[stepIdx]), " ",
          info ? el("span", { class: "meta" }, fmtUs(info.us) + (info.done ? ", done" : ", not done")) : null)));
      }
      const fname = S[name], sname = stepIdx < 0 ? "" : S[stepIdx], dname = ["C>H", "H>C", "?"][dir];
      const hit = hits.some((f) => f.fr === fname && (!f.d || f.d === dname) && (!f.s || f.s === sname));
      const cells = [
        el("td", { class: "num" }, "#" + index),
        el("td", { class: "num" }, "+" + fmtUs(us)),
        el("td", { class: "name" + (hit ? " hit" : ""), title: fname }, fname, ctl ? el("span", { class: "tag" }, "control") : null,
          conns.size > 1 ? el("span", { class: "tag" }, "conn " + conn) : null,
          arrived >= 0 ? el("span", { class: "tag arrived", title: "it belongs to step " + sname + ", which caused it" }, "arrived in " + S[arrived]) : null),
        el("td", { class: "num payload" }, payload < 0 ? "" : payload + " B"),
        el("td", { class: "num size" }, size + " B"),
      ];
      const empty = () => [el("td"), el("td"), el("td"), el("td"), el("td")];
      const row = el("tr", { class: [ctl ? "ctl" : "", fields >= 0 ? "has-fields" : ""].join(" ").trim() || null },
        dir === 1 ? empty() : cells, el("td"), dir === 1 ? cells : empty());
      if (fields >= 0) {
        row.tabIndex = 0;
        row.title = "show its fields";
        const toggle = () => {
          const next = row.nextElementSibling;
          if (next && next.classList.contains("fields")) {
            next.remove();
            row.classList.remove("open");
            return;
          }
          row.classList.add("open");
          row.after(el("tr", { class: "fields" }, el("td", { colspan: 11 },
            el("div", { class: "fields-head" }, "#" + index + " " + dname + " " + fname),
            el("pre", null, fieldsText(S[fields])))));
        };
        row.addEventListener("click", toggle);
        row.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); } });
      }
      body.append(row);
    }
    section.append(el("table", { class: "frames" }, cols, head, body));
    return section;
  }

  function render(p) {
    const repro = el("code", { id: "repro" }, p.r || "");
    const links = [];
    if (p.t) links.push(el("a", { href: href(p.t), class: "transcript" }, "transcript"));
    for (const l of p.l || []) links.push(el("a", { href: href(l), class: "log" }, l.split("/").pop()));
    view.replaceChildren(...[
      el("div", { class: "bar" },
        el("span", { class: "muted" }, "pairing " + p.id),
        el("span", null,
          el("button", { type: "button", onclick: () => step(-1), title: "previous matching pairing (p)" }, "← prev"), " ",
          el("button", { type: "button", onclick: () => step(1), title: "next matching pairing (n)" }, "next →"), " ",
          el("button", { type: "button", onclick: close, title: "close (Esc)" }, "✕"))),
      el("h2", null, label(p)),
      el("p", { class: "status" }, badge(p.st), " ", fmtUs(p.us), " · ", p.cs + "/" + p.n + " steps",
        p.h === p.c ? " · reference" : null,
        p.at ? el("span", null, " · attempts: ", p.at.map((s, i) => [i ? ", " : "", badge(s)])) : null),
      p.e ? el("pre", { class: "err" }, p.e) : null,
      el("div", { class: "repro" }, repro, p.r ? copyButton(p.r, repro) : null),
      findingsSection(p),
      stepsSection(p),
      framesSection(p),
      links.length ? el("p", { class: "links" }, "Files: ", links) : null,
    ].filter(Boolean));
    view.hidden = false;
    view.scrollTop = 0;
    for (const c of document.querySelectorAll("a.cell.current")) c.classList.remove("current");
    const c = cellById.get(String(p.id));
    if (c) c.classList.add("current");
  }

  function close() {
    view.hidden = true;
    for (const c of document.querySelectorAll("a.cell.current")) c.classList.remove("current");
    if (location.hash) history.pushState(null, "", location.pathname + location.search);
  }

  function step(delta) {
    const st = filterState();
    const list = P.filter((p) => matches(p, st));
    if (!list.length) return;
    const cur = location.hash.slice(2);
    let i = list.findIndex((p) => String(p.id) === cur);
    i = i < 0 ? (delta > 0 ? 0 : list.length - 1) : (i + delta + list.length) % list.length;
    location.hash = "#p" + list[i].id;
  }

  function route() {
    const m = /^#p(\d+)$/.exec(location.hash);
    const p = m && byId.get(m[1]);
    if (p) render(p);
    else { view.hidden = true; for (const c of document.querySelectorAll("a.cell.current")) c.classList.remove("current"); }
  }

  window.addEventListener("hashchange", route);
  window.addEventListener("popstate", route);
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "Escape" && !view.hidden) close();
    else if (e.key === "n") step(1);
    else if (e.key === "p") step(-1);
  });
  applyFilters();
  route();
})();
