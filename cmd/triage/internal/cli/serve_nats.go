package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/triage-go/triage/adapter/natsingress"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/server"
)

// natsEnv names the environment variable of each NATS flag of serve.
var natsEnv = map[string]string{
	"nats":                 "TRIAGE_NATS",
	"nats-creds":           "TRIAGE_NATS_CREDS",
	"nats-stream":          "TRIAGE_NATS_STREAM",
	"nats-subject":         "TRIAGE_NATS_SUBJECT",
	"nats-durable":         "TRIAGE_NATS_DURABLE",
	"nats-feedback":        "TRIAGE_NATS_FEEDBACK",
	"nats-dead-letter":     "TRIAGE_NATS_DEAD_LETTER",
	"nats-workers":         "TRIAGE_NATS_WORKERS",
	"nats-max-ack-pending": "TRIAGE_NATS_MAX_ACK_PENDING",
	"nats-ack-wait":        "TRIAGE_NATS_ACK_WAIT",
}

func init() {
	for flag, env := range natsEnv {
		serveEnv[flag] = env
	}
}

// natsFlags are serve's flags of the NATS JetStream ingress.
type natsFlags struct{ cfg natsingress.Config }

func (n *natsFlags) register(fs *flag.FlagSet) {
	c := &n.cfg
	fs.StringVar(&c.URL, "nats", "", "also take reports from NATS JetStream at this `URL` (nats://host:4222; see docs/nats.md)")
	fs.StringVar(&c.Creds, "nats-creds", "", "NATS credentials `file` (a user JWT and its seed)")
	fs.StringVar(&c.Stream, "nats-stream", natsingress.DefaultStream, "the `prefix` of the reports' JetStream streams: tenant T's is PREFIX-T, created when missing (dead letters: PREFIX_DEADLETTER)")
	fs.StringVar(&c.Subject, "nats-subject", natsingress.DefaultSubject, "reports for tenant T are published to `PREFIX`.T")
	fs.StringVar(&c.Durable, "nats-durable", natsingress.DefaultDurable, "the durable consumer's `name` on each report stream, shared by the instances")
	fs.StringVar(&c.Feedback, "nats-feedback", natsingress.DefaultFeedback, "feedback of a message without Triage-Reply-To goes to `PREFIX`.T")
	fs.StringVar(&c.DeadLetter, "nats-dead-letter", natsingress.DefaultDeadLetter, "refused reports' problems go to `PREFIX`.T")
	fs.IntVar(&c.Workers, "nats-workers", natsingress.DefaultWorkers, "NATS `messages` handled at once by this instance")
	fs.IntVar(&c.MaxAckPending, "nats-max-ack-pending", natsingress.DefaultMaxAckPending, "NATS `messages` of one tenant's stream delivered and not yet acknowledged, across the instances")
	fs.DurationVar(&c.AckWait, "nats-ack-wait", natsingress.DefaultAckWait, "a NATS message not acknowledged within this `duration` is delivered again")
}

// check refuses values no consumer could run with.
func (n *natsFlags) check() error {
	c := n.cfg
	switch {
	case c.URL == "":
		return nil
	case c.Workers <= 0:
		return usagef("--nats-workers must be 1 or more")
	case c.MaxAckPending <= 0:
		return usagef("--nats-max-ack-pending must be 1 or more")
	case c.AckWait < time.Second:
		return usagef("--nats-ack-wait must be at least 1s")
	}
	return nil
}

// start starts the NATS ingress when --nats is set (nil when it is not),
// and makes /readyz report it.
func (n *natsFlags) start(ctx context.Context, srv *server.Server) (*natsingress.Consumer, error) {
	if n.cfg.URL == "" {
		return nil, nil
	}
	cfg := n.cfg
	cfg.Logger = srv.Logger().With(slog.String("ingress", "nats"))
	cfg.Tenants, cfg.Registerer, cfg.Problems = srv.Tenants(), srv.Registerer(), srv.ProblemOptions()
	in, err := natsingress.Start(ctx, srv.Service(), cfg)
	if err != nil {
		return nil, fault.Wrap(err, fault.ConfigError, "Cannot start the NATS ingress at "+redactNATS(cfg.URL)+": "+fault.Redact(err.Error()))
	}
	srv.RegisterReadiness("nats", in.Ready)
	return in, nil
}

// describe says where the NATS ingress takes reports, when it does.
func (n *natsFlags) describe(out io.Writer) {
	if c := n.cfg; c.URL != "" {
		fmt.Fprintf(out, "Taking reports from NATS at %s: publish to %s (stream %s, consumer %s)\n",
			redactNATS(c.URL), c.ReportSubject("TENANT"), c.StreamName("TENANT"), c.Durable)
	}
}

// redactNATS drops the passwords and tokens of a NATS URL list.
func redactNATS(list string) string {
	var out []string
	for _, raw := range strings.Split(list, ",") {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			out = append(out, "(unparsable URL)")
			continue
		}
		if u.User != nil {
			if _, has := u.User.Password(); has {
				u.User = url.UserPassword(u.User.Username(), "xxxxx")
			} else {
				u.User = url.User("xxxxx") // a token
			}
		}
		out = append(out, u.String())
	}
	return strings.Join(out, ",")
}
