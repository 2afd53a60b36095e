package report

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"shootout/internal/testenv"
)

// probeResult is what the page script below reads back from the DOM.
type probeResult struct {
	Charts      int     `json:"charts"`
	Bars        int     `json:"bars"`
	Failed      int     `json:"failed"`
	Lines       int     `json:"lines"`
	BarWidth    float64 `json:"barWidth"`
	ChartWidth  float64 `json:"chartWidth"`
	FailedTitle string  `json:"failedTitle"`
	FailedCell  string  `json:"failedCell"`
	Heading     string  `json:"heading"`
	Scripts     int     `json:"scripts"`
}

// TestChromiumRendersTheReport opens a generated report in Debian's
// chromium through the DevTools protocol and asserts what a reader would
// notice: no console error, nothing fetched from anywhere but the file,
// and the seed's chart drawn with one bar per target and label, its
// failed cell hatched and explained on hover.
func TestChromiumRendersTheReport(t *testing.T) {
	bin := testenv.LookPath(t, "chromium", "chromium-browser", "google-chrome")
	path := filepath.Join(t.TempDir(), "report.html")
	if err := WriteHTMLFile(path, fixturePage()); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()

	var mu sync.Mutex
	var problems []string
	note := func(format string, args ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	// the listener sees every event from the tab's start, before any
	// command returns, so nothing the page logs while loading is missed
	listen := chromedp.WithListener(func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			switch e.Type {
			case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeWarning, runtime.ConsoleAPICalledTypeAssert:
				var args []string
				for _, a := range e.Args {
					if len(a.Value) > 0 {
						args = append(args, string(a.Value))
					} else {
						args = append(args, a.Description)
					}
				}
				note("console %s: %s", e.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			note("exception: %s", e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				note("log %s: %s (%s)", e.Entry.Level, e.Entry.Text, e.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if !strings.HasPrefix(e.Request.URL, "file://") {
				note("fetched %s", e.Request.URL)
			}
		}
	})
	ctx, cancelTab := chromedp.NewContext(actx, listen)
	defer cancelTab()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	const probe = `(() => {
	  const m = document.getElementById("g1-mean-1");
	  const failed = m.querySelector("rect.bar.failed");
	  return {
	    charts: document.querySelectorAll("svg.chart").length,
	    bars: m.querySelectorAll("rect.bar").length,
	    failed: m.querySelectorAll("rect.bar.failed").length,
	    lines: m.querySelectorAll("polyline.ratio").length,
	    barWidth: m.querySelector("rect.bar").getBoundingClientRect().width,
	    chartWidth: m.getBoundingClientRect().width,
	    failedTitle: failed.querySelector("title").textContent,
	    failedCell: document.querySelector("td.failed").title,
	    heading: document.querySelector("h1").textContent,
	    scripts: document.scripts.length,
	  };
	})()`
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitVisible(chromedp.CSS("footer"))); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[probeResult](probe))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("page problem: %s", p)
	}
	if got.Charts != 15 {
		t.Errorf("%d charts rendered, want 15", got.Charts)
	}
	// 3 targets × 4 labels, one failed; dashed ratio lines for the 2 others
	if got.Bars != 12 || got.Failed != 1 || got.Lines != 2 {
		t.Errorf("seed chart: %d bars (%d failed), %d ratio lines; want 12 (1), 2", got.Bars, got.Failed, got.Lines)
	}
	if got.BarWidth <= 1 || got.ChartWidth < 400 {
		t.Errorf("chart drawn %v px wide with %v px bars: the SVG did not lay out", got.ChartWidth, got.BarWidth)
	}
	if !strings.Contains(got.FailedTitle, `<script>alert("x")</script>`) || !strings.Contains(got.FailedCell, "Error 1045") {
		t.Errorf("failure reason on hover %q, in the table %q", got.FailedTitle, got.FailedCell)
	}
	if got.Heading != `shootout: sysbench <quick> & "co"` || got.Scripts != 0 {
		t.Errorf("heading %q (escaped text must read back as typed), %d scripts", got.Heading, got.Scripts)
	}
}
