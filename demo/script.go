package demo

import _ "embed"

//go:embed script.yaml
var script []byte

//go:embed links.yaml
var links []byte

// Links returns the links file of the demo data: games, publishers and
// developers link to the Steam store.
func Links() []byte { return links }

// Script returns the scripted model's rules for the offline demo: they
// answer the suggested demo questions so the bot runs without a model.
func Script() []byte { return script }

// AskBackQuestion is a question the demo's script asks back about, as a
// model may: the data spells the publisher "Bethesda" three ways, and each
// choice asks it again with the choice.
const AskBackQuestion = "How many games did Bethesda publish?"

// Questions are the standalone demo questions the script answers, to
// suggest to users. It also answers follow-ups that change the year of a
// question ("And in 2017?").
func Questions() []string {
	return []string{
		"How many games were released in 2018?",
		"Which games have the most positive ratings?",
		"Which publishers released the most games?",
		"What is the average price of paid games by genre?",
		"How many games were released per year?",
		"How many games are free?",
		"How many games support Linux?",
	}
}
