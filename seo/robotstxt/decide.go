package robotstxt

import "strings"

// Decision is the verdict of robots.txt on one path for one agent, with
// the line that decides it.
type Decision struct {
	// Allowed is the verdict, as [Robots.Allowed] gives it.
	Allowed bool `json:"allowed"`
	// Group is the lowercased user-agent name of the group that applies
	// ("*" for the wildcard group); empty when no group applies or the
	// file could not be had.
	Group string `json:"group,omitempty"`
	// Line is the number (from 1) of the Allow or Disallow line that
	// decides; zero when no rule matches.
	Line int `json:"line,omitempty"`
	// Rule is that line as written (clipped to 200 bytes), or why no line
	// decides: "no matching group: allowed", "no matching rule: allowed",
	// "robots.txt unreachable: disallowed", "no robots.txt: allowed".
	Rule string `json:"rule"`
}

// Reasons a [Decision] gives when no line decides.
const (
	DecisionNoGroup     = "no matching group: allowed"
	DecisionNoRule      = "no matching rule: allowed"
	DecisionUnreachable = "robots.txt unreachable: disallowed"
	DecisionNoFile      = "no robots.txt: allowed"
	DecisionRobotsTxt   = "/robots.txt is always allowed"
)

// Decide is [Robots.Allowed] with its reasons: the group that applies to
// userAgent and the line of the longest matching rule.
func (r *Robots) Decide(userAgent, pathAndQuery string) Decision {
	path := normalize(requestPath(pathAndQuery))
	if path == "/robots.txt" {
		return Decision{Allowed: true, Rule: DecisionRobotsTxt}
	}
	switch r.mode {
	case modeAllowAll:
		return Decision{Allowed: true, Rule: DecisionNoFile}
	case modeDisallowAll:
		return Decision{Rule: DecisionUnreachable}
	}
	name, m := r.lookupName(userAgent)
	if m == nil {
		return Decision{Allowed: true, Rule: DecisionNoGroup}
	}
	d := Decision{Allowed: true, Group: name, Rule: DecisionNoRule}
	if ru := m.decisive(path); ru != nil {
		d.Allowed, d.Line, d.Rule = ru.allow, ru.line, ru.text
	}
	return d
}

// lookupName is lookup with the name of the group it finds.
func (r *Robots) lookupName(userAgent string) (string, *merged) {
	if len(r.agents) == 0 {
		return "", nil
	}
	tok := strings.ToLower(Token(userAgent))
	for tok != "" {
		if m, ok := r.agents[tok]; ok {
			return tok, m
		}
		i := strings.LastIndexByte(tok, '-')
		if i <= 0 {
			break
		}
		tok = tok[:i]
	}
	if m, ok := r.agents["*"]; ok {
		return "*", m
	}
	return "", nil
}

// decisive returns the rule that decides path (the longest match, Allow
// winning a tie), or nil when none matches.
func (m *merged) decisive(path string) *rule {
	var best *rule
	for i := range m.rules {
		ru := &m.rules[i]
		if best != nil && (ru.length < best.length || (ru.length == best.length && !ru.allow)) {
			continue
		}
		if ru.match(path) {
			best = ru
		}
	}
	return best
}

// at records the current line in ru.
func (p *parser) at(ru rule) rule {
	ru.line, ru.text = p.lineNum, clip(p.lineText)
	return ru
}
