// Package storetest is the conformance suite every httpapi/store driver
// runs: Run checks each method of store.Store against the contract
// (account scoping, single-use codes and refresh tokens under concurrency,
// exact daily limits under concurrency, final jobs, projects and their
// history, schedules and their exactly-once claims under concurrency,
// alert rules and deliveries (dedupe, cool-down, claims under concurrency,
// the capped log), time precision), and Restart checks that counters and jobs
// survive closing and reopening the database.
//
// A driver's test calls Run, and Restart when its data outlives a Store:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { return openEmpty(t) })
//	}
//
// A driver whose database several processes share calls RunShared
// instead, which races the caps through several handles on one database.
//
// Drivers that implement Dumper also get a check that no plaintext key,
// client secret or code reaches the stored rows.
package storetest
