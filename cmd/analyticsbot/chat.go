package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/terminal"
)

var chatHelp = "Type a question and press Enter. Commands:\n" + chatCommands

// chatCommands lists the chat's commands, one or two lines each.
var chatCommands = commandHelp() + `  :press ACTION VALUE
         press a button a reply lists (saving or cancelling a schedule)
  :good  rate the last answer 👍 (it becomes a candidate example)
  :bad [what was wrong]
         rate the last answer 👎, with an optional note
  1, 2…  ask the question of that number listed under the last reply,
         or choose that answer to a question the bot asked back
  :new   start a new thread
  :help  this help
  :quit  leave (or Ctrl-D)`

// chat is a terminal REPL over one thread, with the buttons of the last
// answer on :csv and :sql.
func chat(ctx context.Context, in io.Reader, out io.Writer) error {
	b, err := openBot(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintf(out, "analyticsbot: ask about %s (model %s)\n", b.Config().Domain, b.ModelName)
	if b.Demo {
		fmt.Fprintln(out, "DEMO MODE: no language model is configured, so a scripted demo model answers.")
		fmt.Fprintln(out, "It knows these questions (the SQL runs for real on the demo data):")
		for _, q := range demo.Questions() {
			fmt.Fprintln(out, "  -", q)
		}
		if b.Backend().Name() == "postgres" { // the demo's Cube rules do not ask back
			fmt.Fprintln(out, "  -", demo.AskBackQuestion, "(the demo asks back which Bethesda)")
		}
		fmt.Fprintln(out, "  and follow-ups that change the year, such as “And in 2017?”")
		fmt.Fprintln(out, "Set LLM_PROVIDER and a key (see README) to ask anything.")
	}
	fmt.Fprintln(out, chatHelp)

	r := &repl{b: b, out: out, thread: bot.NewThreadID()}
	rd := bufio.NewReaderSize(in, 64*1024)
	for {
		fmt.Fprint(out, "\n> ")
		text, err := readLine(rd, maxChatLine)
		if err != nil {
			fmt.Fprintln(out)
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		line := strings.TrimSpace(text)
		if line == ":quit" || line == ":q" {
			return nil
		}
		if err := r.handle(ctx, line); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			fmt.Fprintln(out, "error:", err)
		}
	}
}

// maxChatLine is how much of a line the chat keeps: far more than the
// bot reads (MAX_MESSAGE_LENGTH), so a longer paste is still one message,
// which the bot answers as too long.
const maxChatLine = 1 << 20

// readLine reads one line of rd without its end, keeping at most limit
// bytes of it: the rest is read and dropped, so a huge paste neither ends
// the chat nor fills memory. The last line may lack its end; io.EOF comes
// after it.
func readLine(rd *bufio.Reader, limit int) (string, error) {
	var b []byte
	for {
		chunk, err := rd.ReadSlice('\n')
		if room := limit - len(b); room > 0 {
			b = append(b, chunk[:min(len(chunk), room)]...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && (len(b) == 0 || !errors.Is(err, io.EOF)):
			return "", err
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
}

type repl struct {
	b       *bot.Bot
	out     io.Writer
	thread  string
	queryID string // of the last answer with a result
	// listed are the questions the last reply numbered.
	listed []string
}

func (r *repl) handle(ctx context.Context, line string) error {
	msg := bot.Message{ThreadID: r.thread, UserID: "terminal", ChannelID: "terminal", Text: line}
	var (
		rep bot.Reply
		err error
	)
	if i, err := strconv.Atoi(line); err == nil && len(r.listed) > 0 {
		if i < 1 || i > len(r.listed) {
			fmt.Fprintf(r.out, "Type a number from 1 to %d, or a question.\n", len(r.listed))
			return nil
		}
		line = r.listed[i-1]
		msg.Text = line
		fmt.Fprintln(r.out, "> "+terminal.Inert(line))
	}
	switch line {
	case "":
		return nil
	case ":help":
		fmt.Fprintln(r.out, chatHelp)
		return nil
	case ":new":
		// A new thread has no last reply: no buttons, no numbered questions.
		r.thread, r.queryID, r.listed = bot.NewThreadID(), "", nil
		fmt.Fprintln(r.out, "new thread", r.thread)
		return nil
	case ":good":
		if r.queryID == "" {
			fmt.Fprintln(r.out, "No answer with a result yet: ask a question first.")
			return nil
		}
		msg.Text = ""
		rep, err = r.b.PressRating(ctx, msg, true, r.queryID, "")
	default:
		if action, ok := nodes.CommandIntent(line); ok {
			// An answer's button: its command in the intent table.
			if r.queryID == "" {
				fmt.Fprintln(r.out, "No answer with a result yet: ask a question first.")
				return nil
			}
			msg.Text = ""
			rep, err = r.b.Press(ctx, msg, string(action), r.queryID)
			break
		}
		if press, ok := strings.CutPrefix(line, ":press "); ok {
			// A button of the schedule flow: its action and value.
			action, value, _ := strings.Cut(strings.TrimSpace(press), " ")
			msg.Text = ""
			rep, err = r.b.Press(ctx, msg, action, strings.TrimSpace(value))
			if errors.Is(err, bot.ErrBadAction) {
				fmt.Fprintln(r.out, "That is not a button of the last reply.")
				return nil
			}
			break
		}
		if note, ok := strings.CutPrefix(line, ":bad"); ok && (note == "" || note[0] == ' ') {
			if r.queryID == "" {
				fmt.Fprintln(r.out, "No answer with a result yet: ask a question first.")
				return nil
			}
			msg.Text = ""
			rep, err = r.b.PressRating(ctx, msg, false, r.queryID, strings.TrimSpace(note))
			break
		}
		if line == ":press" {
			fmt.Fprintln(r.out, "Type :press ACTION VALUE, as a reply lists it.")
			return nil
		}
		if c := unknownCommand.FindString(line); c != "" {
			fmt.Fprintf(r.out, "There is no command %s. Ask a question, or type one of these:\n%s\n", c, chatCommands)
			return nil
		}
		rep, err = r.b.Ask(ctx, msg)
	}
	defer rep.Close()
	if err != nil {
		return err
	}
	if rep.Answer == nil {
		return errors.New("the workflow ended without a reply")
	}
	if rep.QueryID != "" && rep.Outcome.OK() && rep.Intent != string(nodes.IntentFeedback) {
		r.queryID = rep.QueryID
	}
	fmt.Fprint(r.out, terminal.Render(rep.Answer, terminal.Options{ANSI: isTerminal(r.out), Press: chatPress,
		Rate: ":good / :bad [what was wrong]", Numbered: true}))
	// A press's reply (the SQL, a CSV) lists nothing: the numbers of the
	// answer before it still ask its questions.
	if l := terminal.List(rep.Answer); len(l) > 0 || isQuestion(nodes.Intent(rep.Intent)) || !rep.Outcome.OK() {
		r.listed = l
	}
	if rep.File != nil {
		n, err := saveFile(rep.File)
		if err != nil {
			return err
		}
		fmt.Fprintf(r.out, "Saved %s (%d bytes).\n", rep.File.Name, n)
	}
	return nil
}

// unknownCommand is a line that starts as a command does (":csvv") but is
// none of them: it is not asked as a question. A line that starts with
// another mark (":)") is.
var unknownCommand = regexp.MustCompile(`^:[A-Za-z][A-Za-z-]*`)

// chatPress is the command that presses an answer's button in the chat.
func chatPress(action, value string) string {
	if c := nodes.CommandOf(action); c != "" {
		return c
	}
	if strings.HasPrefix(action, nodes.ActionSchedule+"_") {
		return ":press " + action + " " + value
	}
	return ""
}

// saveFile writes a reply's file under its name in the current directory.
func saveFile(f *bot.File) (int64, error) {
	src, _, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer src.Close()
	dst, err := os.OpenFile(f.Name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, fmt.Errorf("save CSV: %w", err)
	}
	n, err := io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("save CSV: %w", err)
	}
	return n, nil
}

// isTerminal reports whether w is a character device, where ANSI styling
// helps; pipes and files get plain text.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// isQuestion reports whether a turn of intent i asked the data a question
// (the intent table's Question).
func isQuestion(i nodes.Intent) bool {
	spec, _ := nodes.SpecOf(i)
	return spec.Question
}

// commandHelp lists the answer buttons' commands of the intent table, with
// what they do.
func commandHelp() string {
	var b strings.Builder
	for _, spec := range nodes.Intents {
		if spec.Command == "" {
			continue
		}
		lines := strings.Split(spec.CommandHelp, "\n")
		if len(spec.Command) <= 6 {
			fmt.Fprintf(&b, "  %-6s %s\n", spec.Command, lines[0])
			lines = lines[1:]
		} else {
			fmt.Fprintf(&b, "  %s\n", spec.Command)
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "         %s\n", l)
		}
	}
	return b.String()
}
