package optimizer

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Sentence banks for building English test texts deterministically.
var (
	// plain: active, no transition word, distinct openings, no keyphrase words.
	plain = []string{
		"We buy our coffee from a small shop in town.",
		"My sister likes a strong cup after lunch.",
		"Fresh water makes a clear difference to the taste.",
		"Our kettle takes four minutes to reach the right heat.",
		"Good grinders cost less than most people expect.",
		"Every cup starts with a careful choice of roast.",
		"Light roasts keep the fruit notes of the farm.",
		"Dark roasts give a heavy and smoky flavour.",
		"Many cafes sell their own blends at fair prices.",
		"Some people add milk while others drink it black.",
		"A clean filter keeps old oils out of the cup.",
		"Small changes to the grind can fix a bitter brew.",
	}
	// linked: sentences that start with a transition word.
	linked = []string{
		"However, the price of a good roast keeps rising.",
		"Therefore, we store each bag in a dark cupboard.",
		"For example, a French press needs four minutes.",
		"Also, the mug should be warm before you pour.",
		"Finally, we clean the machine every Sunday evening.",
		"In addition, cold brew needs a whole night to steep.",
	}
	passives = []string{
		"The roast was chosen by the owner.",
		"The cups were washed by the staff.",
		"The machine is cleaned every week.",
		"The milk was heated by a steam wand.",
	}
	kpSentence = "Coffee beans from a good roaster make the best cup."
)

// gen builds a text of about n words: paragraphs of five sentences in the
// pattern plain, linked, plain, plain, linked (40% transitions), an H2
// heading before every second paragraph (none when headings is false), and
// the keyphrase sentence as every kpEvery-th sentence (never when 0).
func gen(n, kpEvery int, headings bool) string {
	var b strings.Builder
	words, si, pi, li, para := 0, 0, 0, 0, 0
	var cur []string
	flush := func() {
		if len(cur) == 0 {
			return
		}
		if headings && para%2 == 0 {
			fmt.Fprintf(&b, "## Part %d of the guide\n\n", para/2+1)
		}
		b.WriteString(strings.Join(cur, " "))
		b.WriteString("\n\n")
		cur = nil
		para++
	}
	for words < n {
		si++
		var s string
		switch {
		case kpEvery > 0 && si%kpEvery == 0:
			s = kpSentence
		case len(cur) == 1 || len(cur) == 4:
			s = linked[li%len(linked)]
			li++
		default:
			s = plain[pi%len(plain)]
			pi++
		}
		cur = append(cur, s)
		words += len(strings.Fields(s))
		if len(cur) == 5 {
			flush()
		}
	}
	flush()
	return b.String()
}

func optimize(t *testing.T, req Request) *Report {
	t.Helper()
	if req.Locale == "" {
		req.Locale = "en-US"
	}
	r, err := Optimize(context.Background(), req)
	if err != nil {
		t.Fatalf("Optimize: %v", err)
	}
	return r
}

func findingIDs(r *Report) map[string]Finding {
	m := map[string]Finding{}
	for _, f := range r.Findings {
		if _, ok := m[f.ID]; !ok {
			m[f.ID] = f
		}
	}
	return m
}

// score is a score's value, or -1 when it was not computed.
func score(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}
