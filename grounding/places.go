package grounding

import (
	_ "embed"
	"strings"
)

// placesText lists places with their adjectives, other names and codes.
//
//go:embed places.txt
var placesText string

// places maps a lower-case word or phrase that names a place ("french",
// "france", "fr", "united states", "usa") to every name of that place.
var places = parsePlaces(placesText)

func parsePlaces(text string) map[string][]string {
	out := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "|")
		if len(fields) != 3 {
			panic("grounding: places.txt: want name|adjectives|other names: " + line)
		}
		names := []string{fields[0]}
		for _, f := range strings.Split(fields[2], ",") {
			if f = strings.TrimSpace(f); f != "" {
				names = append(names, f)
			}
		}
		keys := append([]string{}, names...)
		for _, f := range strings.Split(fields[1], ",") {
			if f = strings.TrimSpace(f); f != "" {
				keys = append(keys, f)
			}
		}
		for _, k := range keys {
			out[strings.ToLower(k)] = names
		}
	}
	return out
}

// placeNames are the other names of the place a phrase names: "French"
// gives France, FR and FRA; "United States" gives US, USA, America, ….
// A two-letter code counts only written in capitals ("US", not "us").
func placeNames(phrase string) []string {
	if len(phrase) <= 2 && strings.ToUpper(phrase) != phrase {
		return nil
	}
	names := places[strings.ToLower(phrase)]
	var out []string
	for _, n := range names {
		if !strings.EqualFold(n, phrase) {
			out = append(out, n)
		}
	}
	return out
}
