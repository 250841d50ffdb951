// Package natstest gives tests a corner of their own on a NATS server
// with JetStream: a stream name and subjects no other test uses, a
// connection to publish and listen with, and the streams deleted when
// the test ends. The server is the one TRIAGE_TEST_NATS names; without
// it the test is skipped, saying why.
package natstest
