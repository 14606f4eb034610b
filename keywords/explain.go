package keywords

import (
	"fmt"
	"strconv"
	"strings"
)

// Striking distance: Search Console queries whose average position is on
// the first page's bottom or the second page, where a small gain brings
// clicks. Suggest lists them before other ideas that match the query.
const (
	StrikingDistanceMin = 8
	StrikingDistanceMax = 20
)

// StrikingDistance reports whether k is a Search Console query of the
// site with impressions at an average position from StrikingDistanceMin
// to StrikingDistanceMax.
func StrikingDistance(k *Keyword) bool {
	sc := k.SearchConsole
	return sc != nil && sc.Impressions > 0 && sc.Position != nil &&
		*sc.Position >= StrikingDistanceMin && *sc.Position <= StrikingDistanceMax
}

// Explain returns why k is an idea: what its figures say (its Search
// Console figures, the volume its source measured, the range it gave)
// followed by the note its source wrote in k.Why (the pages of the site
// it occurs on, for instance); with neither, the source that listed it.
func Explain(k *Keyword) string {
	var parts []string
	switch sc := k.SearchConsole; {
	case sc != nil:
		why := fmt.Sprintf("Search Console query of the site: %d impressions, %d clicks", sc.Impressions, sc.Clicks)
		if sc.Position != nil {
			why += ", average position " + strconv.FormatFloat(*sc.Position, 'f', 1, 64)
		}
		if StrikingDistance(k) {
			why += fmt.Sprintf(" (striking distance: positions %d-%d)", StrikingDistanceMin, StrikingDistanceMax)
		}
		parts = append(parts, why)
	case k.Volume != nil && k.Estimated:
		parts = append(parts, fmt.Sprintf("volume %d estimated by %s", *k.Volume, k.Source))
	case k.Volume != nil:
		parts = append(parts, fmt.Sprintf("volume %d measured by %s", *k.Volume, k.Source))
	case k.VolumeRange != "":
		parts = append(parts, fmt.Sprintf("volume range %s from %s", k.VolumeRange, k.Source))
	}
	if len(parts) > 0 && strings.Contains(k.Why, parts[0]) {
		parts = parts[:0] // explained already, as in an answer merged again
	}
	if k.Why != "" {
		parts = append(parts, k.Why)
	}
	switch {
	case len(parts) > 0:
		return strings.Join(parts, "; ")
	case k.Expansion:
		return "generated from the query by " + k.Source + ", not measured"
	}
	return "listed by " + k.Source + " without a volume"
}
