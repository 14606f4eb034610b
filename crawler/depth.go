package crawler

// recDepth is the click depth of rec, -1 for none.
func recDepth(rec *pageRec) int32 {
	if rec.more != nil {
		return int32(rec.more.depth())
	}
	return rec.depth
}

// setRecDepth sets the click depth of rec.
func setRecDepth(rec *pageRec, d int32) {
	if rec.more != nil {
		rec.more.Depth = depthPtr(int(d))
		return
	}
	rec.depth = d
}

// shortestDepths lowers each page's click depth to the fewest links from
// the start URL over the link graph the crawl recorded, a redirect costing
// none (its target is crawled at its source's depth). A crawl records the
// depth at which it first met a URL; with pages fetched at once, a page of
// depth 2 can be read before a page of depth 1 that links to the same URL,
// which then keeps depth 3. Which page is read first depends on timing,
// so a depth read from the crawl order alone could change from one crawl
// of the same site to the next, and with the number of workers. A URL
// that no recorded path from a page of known depth reaches (one only a
// sitemap lists) keeps none; one the crawl met through its canonical,
// hreflang or refresh target keeps the depth it was met at, or a lower one.
//
// It is Dial's algorithm over the depths the crawl recorded, which are
// upper bounds: pages by depth in buckets, each page's edges read once at
// its final depth. A URL without a depth gets one only within MaxDepth, as
// the crawl follows no link deeper.
func (r *siteRun) shortestDepths() {
	n := r.npages
	dist := make([]int32, n)
	var buckets [][]int32
	push := func(i, d int32) {
		for int(d) >= len(buckets) {
			buckets = append(buckets, nil)
		}
		buckets[d] = append(buckets[d], i)
	}
	for i := range n {
		dist[i] = recDepth(r.rec(i))
		if dist[i] >= 0 {
			push(int32(i), dist[i])
		}
	}
	// Edges recorded with another page than their source (redirect hops
	// of a summary's Redirects) are rare: gathered first, by source page.
	var foreign map[int32][]edge
	for i := range n {
		for e := range r.edgesOf(i) {
			if f := r.pageOf[e.from]; f >= 0 && int(f) != i {
				if foreign == nil {
					foreign = map[int32][]edge{}
				}
				foreign[f] = append(foreign[f], e)
			}
		}
	}
	relax := func(u, d int32, e edge) {
		t := r.pageOf[e.target()]
		if t < 0 || t == u {
			return
		}
		nd := d + 1
		if e.redirect() {
			nd = d
		}
		if (dist[t] < 0 && int(nd) <= r.b.maxDepth) || nd < dist[t] {
			dist[t] = nd
			push(t, nd)
		}
	}
	for d := int32(0); int(d) < len(buckets); d++ {
		// A redirect adds to the bucket being read: read it by index.
		for k := 0; k < len(buckets[d]); k++ {
			u := buckets[d][k]
			if dist[u] != d {
				continue // met again at a lower depth
			}
			node := uint32(r.nodeOf[u])
			for e := range r.edgesOf(int(u)) {
				if e.from == node {
					relax(u, d, e)
				}
			}
			for _, e := range foreign[u] {
				relax(u, d, e)
			}
		}
		buckets[d] = nil
	}
	for i := range n {
		if rec := r.rec(i); recDepth(rec) != dist[i] {
			setRecDepth(rec, dist[i])
		}
	}
}
