package crawler

// Memory model constants (see MEMORY.md). TestMemoryModel measures the
// per-page and per-URL figures and fails when one exceeds its constant;
// the constants keep a margin of about two for longer texts and URLs.
const (
	// memPerPage is what a crawled page costs, from its summary and edges
	// during the crawl to the peak of the site checks built from them
	// (measured: 487 bytes for a page of 25 links while crawling,
	// 633-773 at the peak of the build).
	memPerPage = 2 << 10
	// memPerKnownURL is what a URL known but not crawled costs: its
	// frontier entry (seen-set and queue) and its node in the link graph
	// (measured: 222 bytes for a 60-byte URL, 119 with a frontier on
	// disk).
	memPerKnownURL = 512
	// memPerSitemapURL is the hash kept per sitemap URL.
	memPerSitemapURL = 8
	// memPerExternal is what an external link target checked costs: its
	// URL, its answer and its place in the checker's set.
	memPerExternal = 400
	// memBase covers the crawl's state of fixed size: the skipped-URL
	// counter (at most 2^17 hashes), the robots.txt verdicts of up to
	// 10,000 resources, the trap guard, the sitemap reader, and the link
	// cache (8,192 targets of about 450 bytes: 3.5 MiB).
	memBase = 12 << 20
)

// EstimateMemory returns the bytes a crawl with options o may hold in its
// own state, by the memory model of MEMORY.md:
//
//	12 MiB
//	+ MaxPages × 2 KiB                         (summaries, edges, site checks)
//	+ (MaxQueuedURLs + MaxLinkTargets) × 512 B (known URLs not crawled)
//	+ MaxSitemapURLs × 8 B                     (sitemap URL hashes)
//	+ MaxExternalChecks × 400 B                (unless SkipExternalLinks)
//	+ MaxResourceChecks × 400 B                (unless SkipResourceChecks)
//
// with the defaults of o applied (nil means all defaults). The analysis of
// the pages in flight (Concurrency of them) is not included: the analyzer
// accounts for it. It is what Run reserves from Options.Memory.
func EstimateMemory(o *Options) int64 {
	r := o.resolved()
	n := int64(memBase) +
		int64(r.MaxPages)*memPerPage +
		int64(r.MaxQueuedURLs+r.MaxLinkTargets)*memPerKnownURL +
		int64(r.MaxSitemapURLs)*memPerSitemapURL
	if !r.SkipExternalLinks {
		n += int64(r.MaxExternalChecks) * memPerExternal
	}
	if !r.SkipResourceChecks {
		// An in-scope image checked costs what an external target does.
		n += int64(r.MaxResourceChecks) * memPerExternal
	}
	return n
}
