package natsingress

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/wire/problem"
)

// Consumer takes reports from JetStream streams into a Server: a durable
// pull consumer on each tenant's stream, Config.Workers messages in hand
// at most, all tenants' together.
type Consumer struct {
	cfg Config
	svc Service
	nc  *nats.Conn
	js  jetstream.JetStream
	log *slog.Logger
	*metrics
	lanes []*lane
	sem   chan struct{} // a worker's slot
	work  sync.WaitGroup
	quit  chan struct{} // closed by stop
	abort chan struct{} // closed when a shutdown gives up waiting
	done  chan struct{} // closed when every lane's run returns

	mu       sync.Mutex
	stopping bool

	stopOnce, abortOnce sync.Once
}

// lane is one stream the consumer takes reports from: a tenant's, or
// the shared stream of the earlier layout (tenant ""), drained.
type lane struct {
	stream string
	tenant string
	batch  int // the messages fetched ahead

	mu      sync.Mutex
	cons    jetstream.Consumer
	it      jetstream.MessagesContext
	down    error // why the lane is not consuming; nil while it is
	retired bool  // the shared stream, deleted: nothing more to drain
}

func (l *lane) setDown(err error) {
	l.mu.Lock()
	l.down = err
	l.mu.Unlock()
}

// errStopped is subscribe's error once the consumer is stopping.
var errStopped = errors.New("natsingress: the consumer is stopped")

// setupTimeout bounds the creation of the streams and the consumer.
const setupTimeout = 30 * time.Second

// How long a pull request waits for messages, and how often NATS says it
// still waits.
const (
	pullExpiry    = 10 * time.Second
	pullHeartbeat = 3 * time.Second
)

// Start connects to NATS, creates or updates the streams (the dead-letter
// stream, and each tenant's report stream) and their durable consumers,
// and consumes reports into svc until ctx is done or Close is called;
// then it drains: it fetches no more, and finishes (and acknowledges)
// the messages in hand, for at most DrainTimeout. It fails when NATS
// cannot be reached or the streams cannot be set up; once started, it
// reconnects, and sets a stream and its consumer up again, for as long
// as it runs (Ready tells meanwhile).
func Start(ctx context.Context, svc Service, cfg Config) (*Consumer, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Problems == nil {
		cfg.Problems = &problem.Options{}
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	cfg.Tenants = slices.Compact(slices.Sorted(slices.Values(cfg.Tenants)))
	if len(cfg.Tenants) == 0 {
		return nil, errors.New("natsingress: Config.Tenants names no tenant")
	}
	for _, t := range cfg.Tenants {
		if !triage.IsIdentifier(t) {
			return nil, fmt.Errorf("natsingress: Config.Tenants: %q is not an identifier", t)
		}
		if cfg.StreamName(t) == cfg.DeadLetterStream {
			return nil, fmt.Errorf("natsingress: tenant %s's stream would be the dead-letter stream %s", t, cfg.DeadLetterStream)
		}
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
		return nil, fmt.Errorf("natsingress: connecting to NATS: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("natsingress: %w", err)
	}
	c := &Consumer{cfg: cfg, svc: svc, nc: nc, js: js, log: log, metrics: newMetrics(cfg.Registerer),
		sem: make(chan struct{}, cfg.Workers), quit: make(chan struct{}), abort: make(chan struct{}),
		done: make(chan struct{})}
	sctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	if c.lanes, err = c.planLanes(sctx); err != nil {
		nc.Close()
		return nil, err
	}
	for _, l := range c.lanes {
		if err := c.subscribe(sctx, l); err != nil && !errors.Is(err, errRetired) {
			c.stop()
			nc.Close()
			return nil, err
		}
	}
	var runs sync.WaitGroup
	for _, l := range c.lanes {
		runs.Go(func() { c.run(l) })
	}
	go func() {
		runs.Wait()
		close(c.done)
	}()
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

// subscribe sets l's stream and consumer up and starts fetching.
func (c *Consumer) subscribe(ctx context.Context, l *lane) error {
	cons, err := c.setupLane(ctx, l)
	if errors.Is(err, errRetired) {
		l.mu.Lock()
		l.retired, l.down = true, nil
		l.mu.Unlock()
		return err
	}
	if err != nil {
		return err
	}
	// A pull request lasts pullExpiry, and NATS sends a heartbeat every
	// pullHeartbeat while it waits: two missed say the consumer may be
	// gone (a deleted consumer is not always announced). Each lane fetches
	// its share of the workers ahead, so that what waits in this
	// instance's hands, its ack wait running, stays about Workers.
	it, err := cons.Messages(jetstream.PullMaxMessages(l.batch),
		jetstream.PullExpiry(pullExpiry), jetstream.PullHeartbeat(pullHeartbeat))
	if err != nil {
		return fmt.Errorf("natsingress: consuming %s/%s: %w", l.stream, c.cfg.Durable, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping {
		it.Stop()
		return errStopped
	}
	l.mu.Lock()
	l.cons, l.it, l.down = cons, it, nil
	l.mu.Unlock()
	return nil
}

// run consumes l until the consumer stops; when the fetching ends
// otherwise (the consumer or the stream was deleted), it sets them up
// again, waiting longer after each failure. The shared stream, once
// deleted, is not made again: its lane ends.
func (c *Consumer) run(l *lane) {
	for {
		l.mu.Lock()
		it, cons, retired := l.it, l.cons, l.retired
		l.mu.Unlock()
		if retired {
			return
		}
		err := c.consume(l, it, cons)
		if c.isStopping() {
			return
		}
		l.setDown(err)
		c.log.Warn("NATS consumer stopped; setting it up again", slog.String("stream", l.stream), slog.Any("error", err))
		for delay := time.Second; ; delay = min(2*delay, 30*time.Second) {
			select {
			case <-c.quit:
				return
			case <-time.After(delay):
			}
			ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
			err := c.subscribe(ctx, l)
			cancel()
			if err == nil {
				c.log.Info("NATS consumer set up again", slog.String("stream", l.stream))
				break
			}
			if errors.Is(err, errStopped) {
				return
			}
			if errors.Is(err, errRetired) {
				c.log.Info("the shared report stream is deleted: all its reports were handled or given up", slog.String("stream", l.stream))
				return
			}
			l.setDown(err)
			c.log.Warn("setting the NATS consumer up failed", slog.String("stream", l.stream), slog.Any("error", err))
		}
	}
}

// consume hands each message of it to a worker, once one is free, until
// it is closed: it returns why. The lanes waiting for a worker take the
// free ones in turn (a channel's senders are served in order), so a
// tenant with a flood of messages gets one worker in its turn, not all of
// them. When heartbeats are missed and cons is gone, it closes it.
func (c *Consumer) consume(l *lane, it jetstream.MessagesContext, cons jetstream.Consumer) error {
	var last error
	for {
		msg, err := it.Next()
		if err != nil {
			if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				if last != nil {
					return last
				}
				return err
			}
			// A missed heartbeat, a deleted consumer: the iterator says
			// closed next if it gave up.
			last = err
			c.log.Warn("fetching NATS messages", slog.String("stream", l.stream), slog.Any("error", err))
			if errors.Is(err, jetstream.ErrNoHeartbeat) && c.gone(cons) {
				it.Stop()
				last = fmt.Errorf("natsingress: consumer %s/%s: %w", l.stream, c.cfg.Durable, jetstream.ErrConsumerNotFound)
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		select {
		case c.sem <- struct{}{}:
		case <-c.abort: // shutting down, the workers still busy: delivered again
			_ = msg.Nak()
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

// stop stops fetching and lets the messages fetched already be handled.
func (c *Consumer) stop() {
	c.stopOnce.Do(func() {
		c.mu.Lock()
		c.stopping = true
		c.mu.Unlock()
		close(c.quit)
		for _, l := range c.lanes {
			l.mu.Lock()
			it := l.it
			l.mu.Unlock()
			if it != nil {
				it.Drain()
			}
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
		c.abortOnce.Do(func() { close(c.abort) })
		for _, l := range c.lanes {
			l.mu.Lock()
			it := l.it
			l.mu.Unlock()
			if it != nil {
				it.Stop() // what is left in the buffer is delivered again
			}
		}
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
// (stopped, disconnected from NATS, a stream's consumer gone and not set
// up again yet). It asks NATS for each consumer's info, within ctx.
func (c *Consumer) Ready(ctx context.Context) error {
	if c.isStopping() {
		return errStopped
	}
	if !c.nc.IsConnected() {
		return fmt.Errorf("natsingress: NATS connection %s", c.nc.Status())
	}
	for _, l := range c.lanes {
		l.mu.Lock()
		down, cons, retired := l.down, l.cons, l.retired
		l.mu.Unlock()
		switch {
		case retired:
			continue
		case down != nil:
			return fmt.Errorf("natsingress: stream %s: %w", l.stream, down)
		}
		if _, err := cons.Info(ctx); err != nil {
			if l.tenant == "" && errors.Is(err, jetstream.ErrStreamNotFound) {
				continue // the shared stream, deleted: its lane ends
			}
			return fmt.Errorf("natsingress: consumer %s/%s: %w", l.stream, c.cfg.Durable, err)
		}
	}
	return nil
}

// Service is what the consumer needs of the service it feeds: the
// pipeline every door calls. *service.Service is one.
type Service interface {
	Accept(ctx context.Context, sub service.Submission) (service.Answer, error)
}
