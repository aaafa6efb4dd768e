package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/skewtest/skewtest/internal/build/builds"
)

type cacheOptions struct {
	CacheDir  string
	OlderThan time.Duration
	All       bool
}

// cacheUsage is cache's help: its subcommands.
const cacheUsage = `Usage:
  skewtest cache ls [--cache-dir D]                      list the builds in the cache, and what killed runs left
  skewtest cache prune [--older-than D] [--all] [--cache-dir D]
                                                         remove failed builds and what killed runs left (and old builds)
Run "skewtest cache ls -h" or "skewtest cache prune -h" for their flags.
`

func parseCache(args []string, stdout, stderr io.Writer) (sub string, o *cacheOptions, err error) {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprint(stdout, cacheUsage)
		return "", nil, &exitError{exitOK}
	}
	if len(args) == 0 || !slices.Contains(subcommands("cache"), args[0]) {
		if len(args) > 0 {
			if err := didYouMean("cache", args[0], subcommands("cache")); err != nil {
				return "", nil, err
			}
		}
		fmt.Fprint(stderr, cacheUsage)
		return "", nil, usagef("cache: want a subcommand: ls or prune")
	}
	sub, args = args[0], args[1:]
	o = &cacheOptions{}
	synopsis := "cache ls [--cache-dir D]"
	if sub == "prune" {
		synopsis = "cache prune [--older-than D] [--all] [--cache-dir D]"
	}
	fs := newFlagSet("cache "+sub, stderr, synopsis)
	fs.StringVar(&o.CacheDir, "cache-dir", "", "build cache (default: the user cache directory's skewtest)")
	if sub == "prune" {
		fs.Func("older-than", "also remove builds not used for this long (1h30m, 7d, 2w)", func(s string) error {
			d, err := parseAge(s)
			o.OlderThan = d
			return err
		})
		fs.BoolVar(&o.All, "all", false, "remove every build and the shared GOCACHE")
	}
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return "", nil, err
	}
	if o.CacheDir == "" {
		if o.CacheDir, err = builds.DefaultCacheDir(); err != nil {
			return "", nil, usagef("no user cache directory (%v): give --cache-dir", err)
		}
	}
	return sub, o, nil
}

// parseAge is time.ParseDuration plus days (d) and weeks (w).
func parseAge(s string) (time.Duration, error) {
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			if v, err := strconv.ParseFloat(n, 64); err == nil && v >= 0 {
				return time.Duration(v * float64(unit)), nil
			}
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration like 36h, 7d or 2w", s)
	}
	return d, nil
}

func cmdCache(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, o, err := parseCache(args, stdout, stderr)
	if err != nil {
		return err
	}
	if sub == "ls" {
		return cacheList(o, stdout)
	}
	return cachePrune(ctx, o, stdout)
}

func cacheList(o *cacheOptions, stdout io.Writer) error {
	es, err := builds.List(o.CacheDir)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tLABEL\tREVISION\tSTATUS\tSIZE\tUSED")
	var total int64
	left := 0
	now := time.Now()
	for _, e := range es {
		fmt.Fprintf(tw, "%.12s\t%s\t%.12s\t%s\t%s\t%s\n", e.Key, orDash(e.Label), orDash(e.Revision), e.Status, size(e.Size), age(now.Sub(e.Used)))
		total += e.Size
		if e.Leftover() {
			left++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	leftovers := ""
	if left > 0 {
		leftovers = fmt.Sprintf(" and %d left by killed runs (cache prune removes them)", left)
	}
	fmt.Fprintf(stdout, "%d builds%s, %s in %s\n", len(es)-left, leftovers, size(total), o.CacheDir)
	return nil
}

func cachePrune(ctx context.Context, o *cacheOptions, stdout io.Writer) error {
	res, err := builds.Prune(ctx, o.CacheDir, builds.PruneOptions{OlderThan: o.OlderThan, All: o.All})
	if err != nil {
		return err
	}
	for _, e := range res.Removed {
		fmt.Fprintf(stdout, "removed %.12s %s (%s, %s)\n", e.Key, orDash(e.Label), e.Status, size(e.Size))
	}
	for _, e := range res.Busy {
		fmt.Fprintf(stdout, "kept    %.12s %s: another process holds its build lock\n", e.Key, orDash(e.Label))
	}
	fmt.Fprintf(stdout, "freed %s\n", size(res.Freed))
	return pruneContainers(ctx, stdout)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fK", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
