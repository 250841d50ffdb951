package disktest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// childEnv marks the subprocess, so that the test knows to run its body.
const childEnv = "TRIAGE_DISKTEST_CHILD"

// Nobody is the user an unprivileged subprocess runs as.
const Nobody = 65534

// Options say how the subprocess runs.
type Options struct {
	// Unprivileged runs it as Nobody when the test runs as root (whom
	// file permissions do not stop); else as the test's own user, in the
	// test's own process when nothing else asks for a subprocess.
	Unprivileged bool
	// Own runs it in a process of its own whatever the user: a test that
	// changes process-wide settings (a resource limit) asks for it.
	Own bool
}

// InSubprocess tells the test whether to run its body here: in the
// subprocess it returns true; in the test's process it runs the test
// again in a subprocess as o says, fails t with the subprocess's output
// when it fails (skips it when it skipped), and returns false: the caller
// returns. When o asks for nothing a subprocess would change, it returns
// true at once.
func InSubprocess(t *testing.T, o Options) bool {
	t.Helper()
	if os.Getenv(childEnv) != "" {
		return true
	}
	asNobody := o.Unprivileged && os.Geteuid() == 0
	if !asNobody && !o.Own {
		return true
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot run the test in a subprocess: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), exe, "-test.run="+runPattern(t.Name()), "-test.v", "-test.count=1")
	if asNobody {
		// The test binary's directory is root's alone: nobody runs a copy.
		dir, err := os.MkdirTemp("", "disktest")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		copied := filepath.Join(dir, filepath.Base(exe))
		if err := copyFile(exe, copied); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd.Path = copied
		if !runAs(cmd, Nobody) {
			t.Skipf("cannot run a process as nobody (uid %d) here", Nobody)
		}
	}
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil && asNobody && isStartFailure(err):
		t.Skipf("cannot run the test as nobody (uid %d): %v", Nobody, err)
	case err != nil:
		t.Fatalf("the test's subprocess failed (%v):\n%s", err, out)
	case strings.Contains(string(out), "--- SKIP: "+t.Name()):
		t.Skipf("skipped in its subprocess:\n%s", out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Fatalf("the test's subprocess did not run it:\n%s", out)
	}
	if testing.Verbose() {
		t.Logf("the subprocess's output:\n%s", out)
	}
	t.Logf("passed in a subprocess (as uid %d)", map[bool]int{true: Nobody, false: os.Geteuid()}[asNobody])
	return false
}

// runPattern is the -test.run pattern of exactly the test named name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// isStartFailure tells an error of starting the process (a credential
// the system refuses) from the test's own failure.
func isStartFailure(err error) bool {
	_, exited := err.(*exec.ExitError)
	return !exited
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Chmod sets the mode of the files, failing t when it cannot.
func Chmod(t *testing.T, mode os.FileMode, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.Chmod(p, mode); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// Writable makes the database file at path, its -wal and -shm files (SQLite
// makes them with the database's mode) and its directory writable.
func Writable(t *testing.T, path string) {
	t.Helper()
	Chmod(t, 0o755, filepath.Dir(path))
	Chmod(t, 0o644, path, path+"-wal", path+"-shm")
}
