package logs

// Memory model constants (MEMORY.md); TestMemoryBound measures them.
const (
	memFixed     = 24 << 20 // sketches, days, user-agent cache, batch, line buffers
	memPerURL    = 1536     // a tracked URL of up to MaxTargetBytes with its counters
	memPerDir    = 1536     // a directory key and its counters
	memPerDay    = 160      // one day's counters of one class or bot
	memPerPage   = 256      // a crawled page kept for the join
	memGroups    = 128      // classes, bots and the rest that keep days
	memPerVerify = 160      // a cached verdict (Verifier)
)

// EstimateMemory returns the most memory, in bytes, Analyze holds with
// opts whatever the size of its inputs: the bound MEMORY.md derives from
// the caps. The Verifier's cache is counted when one is given.
func EstimateMemory(opts *Options) int64 {
	o := opts.defaults()
	n := int64(memFixed) + int64(o.MaxURLs)*memPerURL + int64(o.MaxDirectories)*memPerDir +
		int64(o.MaxDays)*memGroups*memPerDay
	if o.Crawl != nil {
		n += int64(o.MaxCrawlPages) * memPerPage
	}
	if o.Verifier != nil {
		n += int64(o.Verifier.o.MaxEntries) * memPerVerify
	}
	return n
}
