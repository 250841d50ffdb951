// Package checkpoint makes a tenant's checkpoints in a store (store/sqlite
// or store/postgres) a durable graph.Checkpointer, so that a graph run
// resumes from its failed node after the process restarts:
//
//	r, err := g.Compile(&graph.Config[State]{Checkpointer: checkpoint.New[State](st.Tenant("acme"))})
//	...
//	out, err := r.Resume(ctx, runID) // in this process, or in the next one
//
// It is a package of its own so that package store and the stores import
// nothing of the graph executor.
package checkpoint
