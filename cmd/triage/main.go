package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
	"github.com/triage-go/triage/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, UI: web.Handler()}
	if fi, err := os.Stdin.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
		env.Stdin = nil // a terminal: nothing is piped in
	}
	code := cli.Run(ctx, os.Args[1:], env)
	stop()
	os.Exit(code)
}
