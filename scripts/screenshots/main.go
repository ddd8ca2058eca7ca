// Command screenshots takes the README's pictures of the web chat from a running server: it asks
// the demo's questions in headless Chromium as a person would (clicking the suggested questions
// and a follow-up, pressing Show SQL) and saves the whole page at desktop width (1280×900) and at
// phone width (375×812). `make screenshots` starts a demo server and runs it.
//
//	go run ./scripts/screenshots -url http://127.0.0.1:8080 -out docs/images
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// shot is one picture: a viewport and the file it is saved as.
type shot struct {
	file          string
	width, height int64
}

var shots = []shot{
	{file: "webchat-chart.png", width: 1280, height: 900},
	{file: "webchat-phone.png", width: 375, height: 812},
}

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "the web chat to photograph (a demo server: MODEL=script:demo)")
	out := flag.String("out", "docs/images", "directory the PNG files are written to")
	chromium := flag.String("chromium", "/usr/bin/chromium", "the Chromium binary (make chromium installs it)")
	ask := flag.String("ask", "", "questions to type instead of the README's, separated by |, to look at other answers")
	flag.Parse()
	for _, s := range shots {
		path := filepath.Join(*out, s.file)
		if err := take(*chromium, *url, path, s, *ask); err != nil {
			fmt.Fprintf(os.Stderr, "screenshots: %s: %v\n", s.file, err)
			os.Exit(1)
		}
		fmt.Println("wrote", path)
	}
}

// take opens a new conversation at the shot's width, asks the questions and saves the page.
func take(chromium, url, path string, s shot, ask string) error {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.WindowSize(int(s.width), int(s.height)),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	tctx, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()

	answers := func(n int) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](fmt.Sprintf(
			`document.querySelectorAll("#log .msg.bot .bubble:not([aria-busy])").length >= %d`, n),
			chromedp.WithPollingTimeout(time.Minute))
	}
	click := func(label string) chromedp.Action[chromedp.Void] {
		// The last button of that label: the newest answer's.
		return chromedp.Poll[chromedp.Void](fmt.Sprintf(`(() => {
		  const b = [...document.querySelectorAll("#log button")].filter((b) => b.textContent.trim() === %q).pop();
		  if (b) b.click();
		  return !!b;
		})()`, label), chromedp.WithPollingTimeout(30*time.Second))
	}
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.EmulateViewport(s.width, s.height),
		chromedp.Navigate(url + "/"),
		chromedp.WaitVisible(chromedp.CSS(".chip")),
		click("Which publishers released the most games?"), answers(1),
		click("How many games were released per year?"), answers(2),
		click("Show SQL"), answers(3),
		// The whole conversation, top to bottom: the viewport as tall as the page, laid out again.
		chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`),
	}
	if ask != "" {
		steps = steps[:3]
		for i, q := range strings.Split(ask, "|") {
			steps = append(steps, chromedp.SendKeys(chromedp.CSS("#question"), q+"\n"), answers(i+1))
		}
		steps = append(steps, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	}
	if err := chromedp.Do(tctx, steps...); err != nil {
		return fmt.Errorf("ask the demo's questions at %s: %w", url, err)
	}
	height, err := chromedp.Run(tctx, chromedp.Evaluate[int64](`document.documentElement.scrollHeight`))
	if err != nil {
		return err
	}
	if err := chromedp.Do(tctx, chromedp.EmulateViewport(s.width, height),
		chromedp.Evaluate[chromedp.Void](`new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))`, chromedp.EvalAwaitPromise),
	); err != nil {
		return err
	}
	png, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
	if err != nil {
		return err
	}
	if len(png) == 0 {
		return errors.New("empty screenshot")
	}
	return os.WriteFile(path, png, 0o644)
}
