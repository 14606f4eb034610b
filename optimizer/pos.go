package optimizer

import (
	"strings"
	"sync"

	"github.com/jdkato/prose/v2"
)

// The English part-of-speech model of prose is decoded once per process,
// on first use, and shared: prose would otherwise decode it again for every
// document (about half a second each). Only the tagger is loaded; named
// entity extraction is never used.
var posModel = sync.OnceValue(func() *prose.Model {
	d, err := prose.NewDocument("init", prose.WithSegmentation(false), prose.WithExtraction(false))
	if err != nil || d == nil {
		return nil
	}
	return d.Model
})

// WarmUp loads the shared English part-of-speech model now rather than on
// the first English request. Servers may call it at start-up.
func WarmUp() { posModel() }

// tagWindow returns the Penn Treebank tags of the words of text, which is a
// short window of a sentence. ok is false when the model is unavailable.
func tagWindow(text string) (toks []prose.Token, ok bool) {
	m := posModel()
	if m == nil {
		return nil, false
	}
	d, err := prose.NewDocument(text, prose.UsingModel(m), prose.WithSegmentation(false), prose.WithExtraction(false))
	if err != nil {
		return nil, false
	}
	return d.Tokens(), true
}

// posPassive reports whether the auxiliary aux (a form of "be" or "get")
// in a short window of a sentence starts a passive by its tags: the
// auxiliary, then at most three adverbs, "not", pronouns or "being", then
// a past participle (VBN).
func posPassive(window, aux string) (passive, ok bool) {
	toks, ok := tagWindow(window)
	if !ok {
		return false, false
	}
	for i := range toks {
		if !strings.EqualFold(foldApostrophes(toks[i].Text), aux) {
			continue
		}
		for j := i + 1; j < len(toks) && j <= i+4; j++ {
			t := toks[j].Tag
			if t == "VBN" {
				return true, true
			}
			if t == "RB" || t == "RBR" || t == "RBS" || t == "PRP" || (t == "VBG" && strings.EqualFold(toks[j].Text, "being")) {
				continue
			}
			break
		}
		return false, true
	}
	return false, true
}
