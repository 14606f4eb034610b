package render

// A11yTags are the axe-core tags an accessibility audit runs: the
// automated rules of WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's
// best practices (rules that are no WCAG success criterion).
var A11yTags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"}

// Caps of an A11y result, applied by the driver (in the page, so that the
// answer it sends is bounded, and again when it reads it).
const (
	// MaxA11yRules caps the rules listed in Violations and in Incomplete.
	MaxA11yRules = 150
	// MaxA11yNodes caps the nodes listed per rule; NodeCount keeps the
	// total.
	MaxA11yNodes = 10
	// MaxA11ySnippet caps a node's HTML snippet and MaxA11yText its
	// selector and failure summary, in bytes.
	MaxA11ySnippet = 300
	MaxA11yText    = 600
)

// A11y is the accessibility audit of a rendered page by axe-core: the
// automated subset of WCAG, which finds about a third to a half of the
// issues an expert review finds; a page without violations is not
// certified accessible.
type A11y struct {
	// Engine names the engine and its version ("axe-core 4.14.1").
	Engine string `json:"engine"`
	// Tags are the axe-core tags run (A11yTags).
	Tags []string `json:"tags"`
	// Violations are the rules that failed; Incomplete the rules axe could
	// not decide on some nodes, which need a human review. Each list holds
	// at most MaxA11yRules rules, the *Omitted counts the rest.
	Violations        []A11yRule `json:"violations"`
	ViolationsOmitted int        `json:"violationsOmitted,omitempty"`
	Incomplete        []A11yRule `json:"incomplete"`
	IncompleteOmitted int        `json:"incompleteOmitted,omitempty"`
	// Passes are the IDs of the rules that passed (at most MaxA11yRules,
	// PassesOmitted counts the rest); Inapplicable counts the rules that
	// found nothing to check on the page.
	Passes        []string `json:"passes"`
	PassesOmitted int      `json:"passesOmitted,omitempty"`
	Inapplicable  int      `json:"inapplicable"`
	// ElapsedMs is the time the audit took in the page.
	ElapsedMs float64 `json:"elapsedMs"`
}

// A11yRule is one axe-core rule's result on a page.
type A11yRule struct {
	// ID is axe's rule ID ("image-alt"); Impact the most severe impact of
	// its nodes: "critical", "serious", "moderate" or "minor" (empty for
	// an incomplete rule axe gave none).
	ID     string `json:"id"`
	Impact string `json:"impact,omitempty"`
	// Help is axe's one-line description of the rule, HelpURL its page at
	// Deque University.
	Help    string `json:"help"`
	HelpURL string `json:"helpUrl"`
	// Tags are the rule's axe tags ("wcag2a", "wcag111", "best-practice").
	Tags []string `json:"tags"`
	// Nodes are the first MaxA11yNodes elements concerned; NodeCount
	// counts them all.
	Nodes     []A11yNode `json:"nodes"`
	NodeCount int        `json:"nodeCount"`
}

// A11yNode is one element a rule concerns.
type A11yNode struct {
	// Target is the element's CSS selector (frames and shadow roots joined
	// by " >>> "); HTML its opening markup, cut at MaxA11ySnippet bytes.
	Target string `json:"target"`
	HTML   string `json:"html"`
	// Summary is axe's failure summary: what to fix.
	Summary string `json:"summary,omitempty"`
	Impact  string `json:"impact,omitempty"`
}
