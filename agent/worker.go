package agent

// PLACEHOLDER until agent/acp lands.
func newWorker(c Config, _ BuildOptions) Backend { return placeholder{string(c.Kind)} }
