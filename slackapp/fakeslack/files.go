package fakeslack

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// File is a file shared with files.completeUploadExternal.
type File struct {
	// ID is the file id files.getUploadURLExternal handed out.
	ID string
	// Name is the filename given to files.getUploadURLExternal.
	Name string
	// Title is the title given to files.completeUploadExternal, the
	// filename when none was, as Slack does.
	Title string
	// Channel is the channel it was shared to ("" when not shared).
	Channel string
	// ThreadTS is the thread it was shared in ("" for none).
	ThreadTS string
	// InitialComment is the message posted with it.
	InitialComment string
	// Content is the bytes uploaded to the upload URL.
	Content []byte
}

// upload is a file between files.getUploadURLExternal and its completion.
type upload struct {
	name     string
	length   int
	content  []byte
	uploaded bool
}

// Files returns the completed files in completion order.
func (s *Server) Files() []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]File(nil), s.files...)
}

// WaitFile waits until a completed file satisfies pred and returns it. It
// fails t after WaitTimeout.
func (s *Server) WaitFile(t testing.TB, pred func(File) bool) File {
	t.Helper()
	var found File
	seen := 0
	s.waitFor(t, "a file", func() bool {
		files := s.Files()
		for _, f := range files[seen:] {
			seen++
			if pred(f) {
				found = f
				return true
			}
		}
		return false
	}, func() string {
		files := s.Files()
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = fmt.Sprintf("%s %q (%d bytes) in %s", f.ID, f.Name, len(f.Content), f.Channel)
		}
		return fmt.Sprintf("%d files so far: [%s]", len(files), strings.Join(names, ", "))
	})
	return found
}

// getUploadURL serves files.getUploadURLExternal.
func (s *Server) getUploadURL(args url.Values) reply {
	name := args.Get("filename")
	length, err := strconv.Atoi(args.Get("length"))
	if name == "" || err != nil || length <= 0 {
		return slackError("invalid_arguments")
	}
	id := fmt.Sprintf("F%08d", s.nextID())
	s.uploads[id] = &upload{name: name, length: length}
	return ok(map[string]any{"upload_url": s.base + "/upload/" + id, "file_id": id})
}

// serveUpload answers POST /upload/<id>: the file as the "file" part of a
// multipart form, as slack-go sends it, or as the raw body.
func (s *Server) serveUpload(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	call := Call{Method: "upload", Args: url.Values{"file_id": {id}}, Token: bearer(r), At: time.Now()}
	content, readErr := readUpload(r)
	s.mu.Lock()
	hold := s.uploadHold
	s.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return // the uploader is gone
		}
	}

	s.mu.Lock()
	rep, injected := s.takeFault("upload", nil)
	up := s.uploads[id]
	switch {
	case injected:
	case up == nil:
		rep = slackError("file_not_found")
		rep.status = http.StatusNotFound
	case readErr != nil:
		rep = invalid("invalid_form_data", []string{readErr.Error()})
		rep.status = http.StatusBadRequest
	default:
		// Slack does not check the size against the declared length.
		up.content, up.uploaded = content, true
		rep = reply{status: http.StatusOK}
	}
	s.record(call, rep)
	s.mu.Unlock()

	if rep.status == http.StatusOK && rep.err == "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = fmt.Fprintf(w, "OK - %d", len(content))
		return
	}
	writeReply(w, rep)
}

func readUpload(r *http.Request) ([]byte, error) {
	ctype, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ctype != "multipart/form-data" {
		return io.ReadAll(r.Body)
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, fmt.Errorf("read multipart body: %w", err)
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil, fmt.Errorf("multipart body has no \"file\" part")
		}
		if err != nil {
			return nil, fmt.Errorf("read multipart body: %w", err)
		}
		if part.FormName() == "file" {
			return io.ReadAll(part)
		}
	}
}

// completeUpload serves files.completeUploadExternal.
func (s *Server) completeUpload(args url.Values) reply {
	var summaries []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(args.Get("files")), &summaries); err != nil || len(summaries) == 0 {
		return slackError("invalid_arguments")
	}
	channel := args.Get("channel_id")
	if channel == "" && args.Get("channels") != "" {
		channel = strings.Split(args.Get("channels"), ",")[0]
	}
	if channel != "" && s.notInChannel[channel] {
		return slackError("not_in_channel")
	}
	for _, f := range summaries {
		if up := s.uploads[f.ID]; up == nil || !up.uploaded {
			return slackError("file_not_found")
		}
	}
	out := make([]map[string]any, len(summaries))
	for i, f := range summaries {
		up := s.uploads[f.ID]
		title := f.Title
		if title == "" {
			title = up.name
		}
		s.files = append(s.files, File{
			ID: f.ID, Name: up.name, Title: title, Channel: channel, ThreadTS: args.Get("thread_ts"),
			InitialComment: args.Get("initial_comment"), Content: up.content,
		})
		delete(s.uploads, f.ID)
		out[i] = map[string]any{"id": f.ID, "title": title}
	}
	return ok(map[string]any{"files": out})
}
