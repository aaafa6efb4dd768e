// Package reportshot keeps the README's picture of report.html true: it renders the page from
// a saved results.json with the current reports package, digests what it rendered, and takes
// the picture with a headless Chromium. `make screenshot` writes the picture and the digest;
// a docs spec renders the page again and fails when the digest no longer matches.
package reportshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/results"
)

// The files, relative to the module's root.
const (
	// ResultsFile is a real run's results.json: the reference subject's working tree and two
	// of its releases, every build with every build. It was made, and is refreshed, with
	//	skewtest example remoteterm
	//	skewtest run --repo remoteterm --matrix full --pins v1.4.120,v1.4.190 --seed 20261015 --report-dir rep
	// copying rep/results.json here (the run exits 1: it has findings), then make screenshot.
	ResultsFile = "docs/testdata/report-results.json"
	// PictureFile is the picture the README shows.
	PictureFile = "docs/report.png"
	// DigestFile holds the digest of the page PictureFile was taken of.
	DigestFile = "docs/testdata/report.digest"
)

// Stale is the message of a picture whose page has changed since it was taken.
const Stale = "docs/report.png is stale: run make screenshot"

// Width and Height are the browser window's size, in CSS pixels (one device pixel each).
const (
	Width  = 1200
	Height = 860
)

// Page renders report.html from run, as skewtest would write it now.
func Page(run *results.Run) ([]byte, error) {
	var page bytes.Buffer
	if err := reports.HTML(&page, run); err != nil {
		return nil, fmt.Errorf("render %s: %w", reports.HTMLFile, err)
	}
	return page.Bytes(), nil
}

// Open is the address fragment of the pairing the picture shows opened beside the matrix:
// the failing pairing with the most findings, the first in plan order among equals; ""
// when no pairing failed.
func Open(run *results.Run) string {
	var open *results.Pairing
	for _, p := range run.Pairings {
		if p.Status == results.StatusFail && p.Index > 0 && (open == nil || len(p.Findings) > len(open.Findings)) {
			open = p
		}
	}
	if open == nil {
		return ""
	}
	return fmt.Sprintf("p%d", open.Index)
}

// Digest names what the picture shows by content: the rendered page and the pairing opened
// in it. The rendering is deterministic (every time and path the page shows comes from the
// results), so a change to what the page shows, its layout or its styles changes the digest.
func Digest(page []byte, fragment string) string {
	h := sha256.New()
	h.Write(page)
	h.Write([]byte("#" + fragment))
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// DigestLine is the digest file's content for page, opened at fragment, rendered from
// resultsFile.
func DigestLine(page []byte, fragment, resultsFile string) string {
	return fmt.Sprintf("%s  %s#%s rendered from %s\n", Digest(page, fragment), reports.HTMLFile, fragment, resultsFile)
}

// ReadDigest reads the digest a digest file records.
func ReadDigest(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	d, _, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
	if !strings.HasPrefix(d, "sha256:") {
		return "", fmt.Errorf("%s:1: not a digest line (want sha256:HEX …)", path)
	}
	return d, nil
}

// ErrNoChromium says no headless Chromium was found to take the picture with.
var ErrNoChromium = errors.New("no chromium or chromium-browser on PATH (apt-get install chromium, or set $SKEWTEST_CHROMIUM)")

// Chromium finds a Chromium to drive: $SKEWTEST_CHROMIUM, else chromium or
// chromium-browser on PATH.
func Chromium() (string, error) {
	if p := os.Getenv("SKEWTEST_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// Shoot opens the page at htmlPath in the headless Chromium at browser, at fragment (a
// pairing's "p<index>", or "" for the matrix alone), and returns a PNG of its first
// Width×Height pixels once the page has drawn them.
func Shoot(ctx context.Context, browser, htmlPath, fragment string) ([]byte, error) {
	abs, err := filepath.Abs(htmlPath)
	if err != nil {
		return nil, err
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
			chromedp.WindowSize(Width, Height), chromedp.Flag("disable-gpu", true),
			chromedp.Flag("hide-scrollbars", true), chromedp.Flag("force-device-scale-factor", "1"))...)
	defer cancelAlloc()
	tab, cancel := chromedp.NewContext(alloc)
	defer cancel()
	// The first action starts the browser, tied to the context it gets: give it the tab's
	// own, and bound the page's actions below.
	if err := chromedp.Do(tab); err != nil {
		return nil, fmt.Errorf("start %s: %w", browser, err)
	}
	act, cancelAct := context.WithTimeout(tab, 60*time.Second)
	defer cancelAct()
	if err := chromedp.Do(act,
		chromedp.EmulateViewport(Width, Height),
		chromedp.Navigate("file://"+filepath.ToSlash(abs)),
		chromedp.WaitVisible(chromedp.CSS("a.cell"))); err != nil {
		return nil, fmt.Errorf("open %s: %w", htmlPath, err)
	}
	if fragment != "" {
		if err := chromedp.Do(act,
			chromedp.Navigate("file://"+filepath.ToSlash(abs)+"#"+fragment),
			chromedp.WaitVisible(chromedp.CSS("#view .finding"))); err != nil {
			return nil, fmt.Errorf("open %s#%s: %w", htmlPath, fragment, err)
		}
	}
	png, err := chromedp.Run(act, chromedp.CaptureScreenshot())
	if err != nil {
		return nil, fmt.Errorf("screenshot %s: %w", htmlPath, err)
	}
	return png, nil
}
