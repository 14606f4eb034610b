package main

import (
	"github.com/seokit/seokit/keywords"
)

// Word lists of the synthetic table: every head noun with every modifier
// and every qualifier gives len(heads)*len(modifiers)*len(qualifiers)
// distinct phrases (100 * 40 * 25 = 100,000).
var (
	heads = []string{
		"table", "chair", "sofa", "lamp", "desk", "bed", "shelf", "rug", "mirror", "cabinet",
		"stool", "bench", "dresser", "wardrobe", "bookcase", "ottoman", "futon", "mattress", "pillow", "curtain",
		"blanket", "vase", "clock", "planter", "basket", "tray", "candle", "frame", "hook", "rack",
		"boots", "sneakers", "sandals", "jacket", "coat", "scarf", "gloves", "hat", "backpack", "wallet",
		"watch", "belt", "umbrella", "sweater", "hoodie", "jeans", "shirt", "dress", "skirt", "socks",
		"kettle", "toaster", "blender", "mixer", "grinder", "skillet", "wok", "knife", "cutting board", "teapot",
		"mug", "bowl", "plate", "spoon", "fork", "pan", "pot", "oven", "fridge", "freezer",
		"drill", "saw", "hammer", "wrench", "ladder", "toolbox", "sander", "router", "chisel", "clamp",
		"tent", "sleeping bag", "stove", "lantern", "cooler", "hammock", "compass", "canteen", "kayak", "paddle",
		"bike", "helmet", "scooter", "skateboard", "treadmill", "dumbbell", "yoga mat", "kettlebell", "rower", "bench press",
	}
	modifiers = []string{
		"oak", "walnut", "pine", "bamboo", "steel", "leather", "wool", "cotton", "linen", "glass",
		"cheap", "best", "modern", "vintage", "rustic", "small", "large", "foldable", "portable", "waterproof",
		"black", "white", "grey", "green", "blue", "red", "handmade", "organic", "lightweight", "heavy duty",
		"kids", "outdoor", "indoor", "electric", "wireless", "smart", "compact", "premium", "used", "custom",
	}
	qualifiers = []string{
		"", "for sale", "near me", "online", "reviews", "uk", "sale", "set", "ideas", "diy",
		"price", "2026", "brands", "for kitchen", "for bedroom", "for garden", "for office", "for camping", "for beginners", "for men",
		"for women", "with storage", "under 100", "repair", "how to clean",
	}
)

// generate builds n synthetic keywords (at most the size of the word
// product) and the queries the load sends. Volumes and difficulties are
// arbitrary deterministic numbers derived from the row's position, only so
// that the suggestion code has figures to rank and merge; they are marked
// with the source "loadtest-synthetic" and as estimates.
func generate(n int) ([]keywords.Keyword, []string) {
	n = min(n, len(heads)*len(modifiers)*len(qualifiers))
	out := make([]keywords.Keyword, 0, n)
	for i := range n {
		h := heads[i%len(heads)]
		m := modifiers[(i/len(heads))%len(modifiers)]
		q := qualifiers[(i/(len(heads)*len(modifiers)))%len(qualifiers)]
		phrase := m + " " + h
		if q != "" {
			phrase += " " + q
		}
		// Arbitrary deterministic figures (see above), not market data.
		vol := 10 + (i*7919)%50000/(1+i%13)
		diff := (i * 31) % 101
		out = append(out, keywords.Keyword{
			Keyword: phrase, Volume: &vol, Difficulty: &diff, DifficultyMethod: "loadtest-synthetic",
			Source: "loadtest-synthetic", Estimated: true,
		})
	}
	// Queries: each head alone and with a modifier, so a query matches
	// from a few dozen to a few thousand rows of the table.
	var queries []string
	for i, h := range heads {
		queries = append(queries, h, modifiers[i%len(modifiers)]+" "+h)
	}
	return out, queries
}
