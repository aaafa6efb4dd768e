// Command reportshot writes docs/report.png, the README's picture of report.html, and the
// digest of the page it was taken of (docs/testdata/report.digest): it renders the page
// from docs/testdata/report-results.json with the current reports package, opens its
// failing pairing with the most findings beside the matrix, and takes the picture with a
// headless Chromium. Run it from the module's root: make screenshot.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/testkit/reportshot"
	"github.com/skewtest/skewtest/results"
)

func main() {
	root := flag.String("root", ".", "the module's root")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := shoot(ctx, *root); err != nil {
		fmt.Fprintln(os.Stderr, "reportshot:", err)
		os.Exit(1)
	}
}

func shoot(ctx context.Context, root string) error {
	browser, err := reportshot.Chromium()
	if err != nil {
		return err
	}
	run, err := results.Load(filepath.Join(root, reportshot.ResultsFile))
	if err != nil {
		return err
	}
	page, err := reportshot.Page(run)
	if err != nil {
		return err
	}
	open := reportshot.Open(run)
	tmp, err := os.MkdirTemp("", "skewtest-reportshot-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	html := filepath.Join(tmp, reports.HTMLFile)
	if err := os.WriteFile(html, page, 0o644); err != nil {
		return err
	}
	png, err := reportshot.Shoot(ctx, browser, html, open)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, reportshot.PictureFile), png, 0o644); err != nil {
		return err
	}
	line := reportshot.DigestLine(page, open, reportshot.ResultsFile)
	if err := os.WriteFile(filepath.Join(root, reportshot.DigestFile), []byte(line), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d KB) and %s\n", reportshot.PictureFile, (len(png)+1023)/1024, reportshot.DigestFile)
	return nil
}
