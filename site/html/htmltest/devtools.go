package htmltest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// DevTools drives one headless Chromium page over the DevTools protocol, on the pipe Chromium offers for it
// (--remote-debugging-pipe: commands on file descriptor 3, answers and events on 4, each message JSON ended by a
// NUL byte), for the checks a command line cannot make: print media, computed styles, key presses, printing to
// PDF. No WebSocket and no client library is needed.
type DevTools struct {
	t       testing.TB
	cmd     *exec.Cmd
	in      *os.File // Chromium's fd 3, written by us
	session string
	timeout time.Duration

	mu      sync.Mutex
	next    int
	waiting map[int]chan devMsg
	events  chan devMsg
	done    chan struct{}
}

type devMsg struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
	Error     *struct{ Message string }
	SessionID string `json:"sessionId"`
}

// StartDevTools starts Chromium (bin, from Chromium) with a blank page attached; it is stopped with the test.
func StartDevTools(t testing.TB, bin string) *DevTools {
	t.Helper()
	toChrome, ours, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	theirs, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // fds 3 and 4
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("chromium: %v", err)
	}
	toChrome.Close()
	fromChrome.Close()
	d := &DevTools{t: t, cmd: cmd, in: ours, timeout: 60 * time.Second, waiting: map[int]chan devMsg{},
		events: make(chan devMsg, 256), done: make(chan struct{})}
	go d.read(theirs)
	t.Cleanup(func() {
		ours.Close()
		cancel()
		_ = cmd.Wait()
		theirs.Close()
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("chromium's log:\n%.4000s", stderr.String())
		}
	})
	var target struct{ TargetID string }
	d.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	d.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	d.session = attached.SessionID
	d.Call("Page.enable", nil, nil)
	d.Call("Runtime.enable", nil, nil)
	return d
}

// read hands each message to the call waiting for it, or to the events.
func (d *DevTools) read(r *os.File) {
	defer close(d.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		b, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m devMsg
		if json.Unmarshal(b[:len(b)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			d.mu.Lock()
			ch := d.waiting[m.ID]
			delete(d.waiting, m.ID)
			d.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		select {
		case d.events <- m:
		default: // nobody waits for that many events; drop the oldest kind of news
		}
	}
}

// Call sends a command to the page and decodes its result into result (nil: ignored); an error fails the test.
func (d *DevTools) Call(method string, params, result any) {
	d.t.Helper()
	d.call(d.session, method, params, result)
}

func (d *DevTools) call(session, method string, params, result any) {
	d.t.Helper()
	d.mu.Lock()
	d.next++
	id := d.next
	ch := make(chan devMsg, 1)
	d.waiting[id] = ch
	d.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	b, err := json.Marshal(msg)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.in.Write(append(b, 0)); err != nil {
		d.t.Fatalf("devtools %s: %v", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			d.t.Fatalf("devtools %s: %s", method, m.Error.Message)
		}
		if result != nil {
			if err := json.Unmarshal(m.Result, result); err != nil {
				d.t.Fatalf("devtools %s: %v", method, err)
			}
		}
	case <-d.done:
		d.t.Fatalf("devtools %s: chromium went away", method)
	case <-time.After(d.timeout):
		d.t.Fatalf("devtools %s: no answer in %s", method, d.timeout)
	}
}

// Navigate loads url and waits for its load event.
func (d *DevTools) Navigate(url string) {
	d.t.Helper()
	for len(d.events) > 0 {
		<-d.events
	}
	var nav struct{ ErrorText string }
	d.Call("Page.navigate", map[string]any{"url": url}, &nav)
	if nav.ErrorText != "" {
		d.t.Fatalf("navigating to %s: %s", url, nav.ErrorText)
	}
	d.WaitLoad()
}

// WaitLoad waits for the next load event of the page (after a navigation the page started itself).
func (d *DevTools) WaitLoad() {
	d.t.Helper()
	deadline := time.After(d.timeout)
	for {
		select {
		case m := <-d.events:
			if m.Method == "Page.loadEventFired" {
				return
			}
		case <-deadline:
			d.t.Fatalf("no page loaded in %s", d.timeout)
		}
	}
}

// Eval evaluates a JavaScript expression in the page (awaiting a promise) and decodes its JSON value into out.
// DevTools evaluates outside the page's Content-Security-Policy, so pages need not allow scripts for the checks.
func (d *DevTools) Eval(expr string, out any) {
	d.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage
		}
		ExceptionDetails *struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	d.Call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if r.ExceptionDetails != nil {
		d.t.Fatalf("evaluating in the page: %s %s", r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			d.t.Fatalf("evaluating in the page: %v (%s)", err, r.Result.Value)
		}
	}
}

// PressTab moves the keyboard focus as the Tab key does.
func (d *DevTools) PressTab() {
	d.t.Helper()
	for _, typ := range []string{"rawKeyDown", "keyUp"} {
		d.Call("Input.dispatchKeyEvent", map[string]any{"type": typ, "key": "Tab", "code": "Tab",
			"windowsVirtualKeyCode": 9, "nativeVirtualKeyCode": 9}, nil)
	}
}

// PressEnter presses and releases Enter (which follows a focused link).
func (d *DevTools) PressEnter() {
	d.t.Helper()
	d.Call("Input.dispatchKeyEvent", map[string]any{"type": "keyDown", "key": "Enter", "code": "Enter",
		"windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13, "text": "\r", "unmodifiedText": "\r"}, nil)
	d.Call("Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": "Enter", "code": "Enter",
		"windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13}, nil)
}

// PrintToPDF prints the page as Chromium's print dialog does on A4 paper with its default margins and no header
// or footer, writes the PDF to file and returns it.
func (d *DevTools) PrintToPDF(file string) []byte {
	d.t.Helper()
	var r struct{ Data string }
	d.Call("Page.printToPDF", map[string]any{"paperWidth": A4Width, "paperHeight": A4Height, "displayHeaderFooter": false}, &r)
	b, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
		d.t.Fatalf("printing to PDF: %v (%d bytes)", err, len(b))
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		d.t.Fatal(err)
	}
	return b
}

// A4 in inches, and Chromium's default print margin (0.4 in each side): the printable width is
// (A4Width - 2*PrintMargin) * 96 CSS pixels.
const (
	A4Width     = 8.27
	A4Height    = 11.69
	PrintMargin = 0.4
)

// PrintableWidth is the width, in CSS pixels, of the area a page prints into on A4 with the default margins.
func PrintableWidth() int {
	inches := A4Width - 2*PrintMargin
	return int(inches * 96)
}
