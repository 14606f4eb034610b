// Package keyed is the bounded map of per-key state behind the server's
// limiters and caches: token buckets per account, address or identity,
// cached plans per account. It holds at most a fixed number of keys and
// drops the least recently used first, so memory stays bounded whatever
// keys clients send.
//
// Dropping a key's state gives the key a fresh start. Users whose state is
// a protection (a spent failure budget) therefore decide before Add
// whether a key may enter at all: the auth throttle does not add entries
// for an address that has spent its failures, so one address cannot flush
// other clients' state, and rate limiters document that a dropped
// account restarts with the allowance it would have regained by idling.
package keyed
