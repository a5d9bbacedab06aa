// Package snapshotlive holds the tests of package snapshot that need a real
// browser, so that snapshot itself builds and tests with no CDP at all. It has
// no code of its own.
//
// Its tests check the acceptance list of the snapshot on the demo pages, both
// as they were recorded in snapshot/testdata/captures (no browser needed) and
// as Chromium captures them now. They also hold the list of recorded pages
// and the tool that records them, after which the golden tests of package
// snapshot are brought up to date:
//
//	go test ./internal/snapshotlive -run TestRecordCaptures -record
//	go test ./snapshot -update
package snapshotlive
