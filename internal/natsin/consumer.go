package natsin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/triage-go/triage/server"
)

// Consumer takes reports from a JetStream stream into a Server: a durable
// pull consumer, Config.Workers messages in hand at most.
type Consumer struct {
	cfg Config
	srv *server.Server
	nc  *nats.Conn
	js  jetstream.JetStream
	log *slog.Logger
	*metrics
	sem  chan struct{} // a worker's slot
	work sync.WaitGroup
	quit chan struct{} // closed by stop
	done chan struct{} // closed when run returns

	mu       sync.Mutex
	cons     jetstream.Consumer
	it       jetstream.MessagesContext
	stopping bool
	down     error // why the consumer is not consuming; nil while it is

	stopOnce sync.Once
}

// errStopped is subscribe's error once the consumer is stopping.
var errStopped = errors.New("natsin: the consumer is stopped")

// setupTimeout bounds the creation of the streams and the consumer.
const setupTimeout = 30 * time.Second

// How long a pull request waits for messages, and how often NATS says it
// still waits.
const (
	pullExpiry    = 10 * time.Second
	pullHeartbeat = 3 * time.Second
)

// Start connects to NATS, creates or updates the streams and the durable
// consumer, and consumes reports into srv until ctx is done or Close is
// called; then it drains: it fetches no more, and finishes (and
// acknowledges) the messages in hand, for at most DrainTimeout. It fails
// when NATS cannot be reached or the streams cannot be set up; once
// started, it reconnects, and sets the consumer up again, for as long as
// it runs (Ready tells meanwhile).
func Start(ctx context.Context, srv *server.Server, cfg Config) (*Consumer, error) {
	if cfg.Logger == nil {
		cfg.Logger = srv.Logger()
	}
	if cfg.Tenants == nil {
		cfg.Tenants = srv.Tenants()
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	nc, err := nats.Connect(cfg.URL,
		nats.Name("triage serve"),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("NATS disconnected", slog.Any("error", err))
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("NATS reconnected", slog.String("server", nc.ConnectedUrlRedacted()))
		}),
		credentials(cfg.Creds),
	)
	if err != nil {
		return nil, fmt.Errorf("natsin: connecting to NATS: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("natsin: %w", err)
	}
	c := &Consumer{cfg: cfg, srv: srv, nc: nc, js: js, log: log, metrics: newMetrics(srv.Registerer()),
		sem: make(chan struct{}, cfg.Workers), quit: make(chan struct{}), done: make(chan struct{})}
	sctx, cancel := context.WithTimeout(ctx, setupTimeout)
	err = c.subscribe(sctx)
	cancel()
	if err != nil {
		nc.Close()
		return nil, err
	}
	go c.run()
	go func() {
		select {
		case <-ctx.Done():
			c.stop()
		case <-c.done:
		}
	}()
	return c, nil
}

// credentials is the option of a credentials file, if any.
func credentials(file string) nats.Option {
	if file == "" {
		return func(*nats.Options) error { return nil }
	}
	return nats.UserCredentials(file)
}

// subscribe sets the streams and the consumer up and starts fetching.
func (c *Consumer) subscribe(ctx context.Context) error {
	cons, err := c.setup(ctx)
	if err != nil {
		return err
	}
	// A pull request lasts pullExpiry, and NATS sends a heartbeat every
	// pullHeartbeat while it waits: two missed say the consumer may be
	// gone (a deleted consumer is not always announced).
	it, err := cons.Messages(jetstream.PullMaxMessages(c.cfg.Workers),
		jetstream.PullExpiry(pullExpiry), jetstream.PullHeartbeat(pullHeartbeat))
	if err != nil {
		return fmt.Errorf("natsin: consuming %s/%s: %w", c.cfg.Stream, c.cfg.Durable, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping {
		it.Stop()
		return errStopped
	}
	c.cons, c.it, c.down = cons, it, nil
	return nil
}

// run consumes until the consumer stops; when the fetching ends
// otherwise (the consumer or the stream was deleted), it sets them up
// again, waiting longer after each failure.
func (c *Consumer) run() {
	defer close(c.done)
	for {
		c.mu.Lock()
		it, cons := c.it, c.cons
		c.mu.Unlock()
		err := c.consume(it, cons)
		if c.isStopping() {
			return
		}
		c.setDown(err)
		c.log.Warn("NATS consumer stopped; setting it up again", slog.Any("error", err))
		for delay := time.Second; ; delay = min(2*delay, 30*time.Second) {
			select {
			case <-c.quit:
				return
			case <-time.After(delay):
			}
			ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
			err := c.subscribe(ctx)
			cancel()
			if err == nil {
				c.log.Info("NATS consumer set up again")
				break
			}
			if errors.Is(err, errStopped) {
				return
			}
			c.setDown(err)
			c.log.Warn("setting the NATS consumer up failed", slog.Any("error", err))
		}
	}
}

// consume hands each message of it to a worker, waiting for a free one
// before fetching the next, until it is closed: it returns why. When
// heartbeats are missed and cons is gone, it closes it.
func (c *Consumer) consume(it jetstream.MessagesContext, cons jetstream.Consumer) error {
	var last error
	for {
		c.sem <- struct{}{}
		msg, err := it.Next()
		if err != nil {
			<-c.sem
			if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				if last != nil {
					return last
				}
				return err
			}
			// A missed heartbeat, a deleted consumer: the iterator says
			// closed next if it gave up.
			last = err
			c.log.Warn("fetching NATS messages", slog.Any("error", err))
			if errors.Is(err, jetstream.ErrNoHeartbeat) && c.gone(cons) {
				it.Stop()
				last = fmt.Errorf("natsin: consumer %s/%s: %w", c.cfg.Stream, c.cfg.Durable, jetstream.ErrConsumerNotFound)
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		c.work.Add(1)
		go func() {
			defer c.work.Done()
			defer func() { <-c.sem }()
			c.handle(msg)
		}()
	}
}

// gone tells whether NATS says cons (or its stream) no longer exists.
func (c *Consumer) gone(cons jetstream.Consumer) bool {
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	defer cancel()
	_, err := cons.Info(ctx)
	return errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound)
}

func (c *Consumer) isStopping() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopping
}

func (c *Consumer) setDown(err error) {
	c.mu.Lock()
	c.down = err
	c.mu.Unlock()
}

// stop stops fetching and lets the messages fetched already be handled.
func (c *Consumer) stop() {
	c.stopOnce.Do(func() {
		c.mu.Lock()
		c.stopping = true
		it := c.it
		c.mu.Unlock()
		close(c.quit)
		if it != nil {
			it.Drain()
		}
	})
}

// Close stops the consumer as a shutdown does (see Start), waits for the
// messages in hand, at most DrainTimeout, and closes the connection. A
// message unfinished then is delivered again.
func (c *Consumer) Close() error {
	c.stop()
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.DrainTimeout)
	defer cancel()
	select {
	case <-c.done:
	case <-ctx.Done():
		c.mu.Lock()
		it := c.it
		c.mu.Unlock()
		it.Stop() // what is left in the buffer is delivered again
		<-c.done
	}
	finished := make(chan struct{})
	go func() { c.work.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-ctx.Done():
		c.log.Warn("NATS messages still in hand at shutdown; NATS delivers them again")
	}
	c.nc.Close()
	return nil
}

// Ready reports whether the consumer takes reports now: nil, or why not
// (stopped, disconnected from NATS, its consumer gone and not set up
// again yet). It asks NATS for the consumer's info, within ctx.
func (c *Consumer) Ready(ctx context.Context) error {
	c.mu.Lock()
	stopping, down, cons := c.stopping, c.down, c.cons
	c.mu.Unlock()
	switch {
	case stopping:
		return errStopped
	case !c.nc.IsConnected():
		return fmt.Errorf("natsin: NATS connection %s", c.nc.Status())
	case down != nil:
		return down
	}
	if _, err := cons.Info(ctx); err != nil {
		return fmt.Errorf("natsin: consumer %s/%s: %w", c.cfg.Stream, c.cfg.Durable, err)
	}
	return nil
}
