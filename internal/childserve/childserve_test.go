package childserve

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// The test binary stands in for the server when CHILDSERVE_HELPER says
// how: "serve" prints its address as triage serve does and answers until
// signalled, "exit" ends at once with status 3, "mute" prints nothing.
func TestMain(m *testing.M) {
	switch os.Getenv("CHILDSERVE_HELPER") {
	case "":
		os.Exit(m.Run())
	case "serve":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.Exit(2)
		}
		fmt.Println("starting")
		fmt.Fprintf(os.Stderr, "env TRIAGE_DB=%q CHILDSERVE_MARK=%q\n", os.Getenv("TRIAGE_DB"), os.Getenv("CHILDSERVE_MARK"))
		fmt.Printf("triage: listening on http://%s (SQLite)\n", ln.Addr())
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	case "exit":
		os.Exit(3)
	case "mute":
		time.Sleep(time.Minute)
	}
	os.Exit(0)
}

func helper(t *testing.T, mode string, stderr io.Writer, timeout time.Duration) (*Process, error) {
	t.Helper()
	return Start(t.Context(), os.Args[0], []string{"-test.run=^$"}, Options{
		Env: []string{"CHILDSERVE_HELPER=" + mode, "CHILDSERVE_MARK=set"}, Stderr: stderr, Timeout: timeout})
}

func TestStartReadsTheAddressAndStops(t *testing.T) {
	t.Setenv("TRIAGE_DB", "/the/callers.db")
	var stderr strings.Builder
	p, err := helper(t, "serve", &stderr, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Base, "http://127.0.0.1:") {
		t.Fatalf("Base = %q, want http://127.0.0.1:PORT", p.Base)
	}
	resp, err := http.Get(p.Base)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" {
		t.Errorf("the child answered %q, want ok", body)
	}
	if p.Pid() <= 0 {
		t.Errorf("Pid = %d", p.Pid())
	}
	p.Stop(10 * time.Second)
	select {
	case <-p.Done():
	default:
		t.Fatal("Stop returned before the child exited")
	}
	if p.Err() == nil {
		t.Error("a child ended by SIGTERM reported no exit error")
	}
	// The caller's TRIAGE_ variables are dropped, Options.Env added.
	if got, want := stderr.String(), `env TRIAGE_DB="" CHILDSERVE_MARK="set"`; !strings.Contains(got, want) {
		t.Errorf("the child's stderr is %q, want %q", got, want)
	}
}

func TestStartChildExits(t *testing.T) {
	_, err := helper(t, "exit", nil, 0)
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("err = %v, want ErrExited with the exit status", err)
	}
}

func TestStartNoAddress(t *testing.T) {
	// Start kills the mute child and waits for it before it returns.
	_, err := helper(t, "mute", nil, 500*time.Millisecond)
	if !errors.Is(err, ErrNoAddress) {
		t.Errorf("err = %v, want ErrNoAddress", err)
	}
}

func TestAddress(t *testing.T) {
	for _, c := range []struct {
		line, want string
		ok         bool
	}{
		{"triage: listening on http://127.0.0.1:4000 (SQLite, 2 workers)", "http://127.0.0.1:4000", true},
		{"bare process listening on http://127.0.0.1:39999", "http://127.0.0.1:39999", true},
		{"starting", "", false},
		{"listening on ", "", false},
	} {
		got, ok := Address(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("Address(%q) = %q, %v; want %q, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}
