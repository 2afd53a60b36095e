package redmine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	"shootout/internal/workload"
)

// The same two cycles sent to a real Redmine over its REST API (--app
// redmine): the operation time is the cycle's HTTP time, Ruby included, as
// the seeds measured it. The counters are the same as the SQL worker's, so
// the same invariants are checked through the database afterwards.

// maxHTTPErrorShare is the share of a client's requests that may end in
// an HTTP error (each retried) before the cell fails: a deadlock or
// SQLite's "database is locked" answered with a 500 now and then is
// Redmine's normal life, a broken setup is not.
const maxHTTPErrorShare = 0.05

// httpRetries bounds how often one request is sent again after an error.
const httpRetries = 5

// ErrHTTP is an HTTP request Redmine answered with an error status.
type ErrHTTP struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *ErrHTTP) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.Path, e.Status, e.Body)
}

type httpWorker struct {
	w      *Workload
	wd     *world
	rng    *rand.Rand
	base   string
	client *http.Client
	cycles

	committed                      counts
	requests, errors4xx, errors5xx int64
	firstError                     string
}

// NewAppWorker is one client of the Redmine at base, with a keep-alive
// connection of its own, as a browser keeps one.
func (w *Workload) NewAppWorker(base string, ds workload.Dataset, client int) (workload.Worker, error) {
	wd, err := w.world(ds)
	if err != nil {
		return nil, err
	}
	seed := uint64(time.Now().UnixNano()) ^ uint64(client)<<32
	tr := &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext}
	hw := &httpWorker{w: w, wd: wd, rng: rand.New(rand.NewPCG(seed, uint64(ds.Seed))), base: base, cycles: cycles{nextKind: client % 2},
		client: &http.Client{Transport: tr, Timeout: 2 * time.Minute}}
	w.mu.Lock()
	hw.pool = w.pool
	w.mu.Unlock()
	return hw, nil
}

func (hw *httpWorker) Do(ctx context.Context) (workload.Outcome, error) {
	return hw.cycles.do(ctx, func() *cycle {
		kind, user := hw.turn(hw.rng, hw.wd.shape.users)
		if kind == opCreate {
			return hw.createCycle()
		}
		return hw.processCycle(user)
	})
}

func (hw *httpWorker) Abort(context.Context) {}

func (hw *httpWorker) Counters() map[string]int64 {
	c := hw.committed
	return map[string]int64{
		"issues_created": c.issuesCreated, "comments": c.comments, "journals": c.journals,
		"journal_details": c.details, "issues_resolved": c.resolved, workload.LogicalBytes: c.logicalBytes,
		"short_lists": hw.shortLists, "issues_listed": hw.listed, "process10_lists": hw.lists, "process10_waits": hw.process10Waits,
		"unfinished_creates": hw.unfinishedCreates, "unfinished_process10": hw.unfinishedProcess,
		"http_requests": hw.requests, "http_4xx": hw.errors4xx, "http_5xx": hw.errors5xx,
	}
}

func (hw *httpWorker) Close() error {
	hw.client.CloseIdleConnections()
	return nil
}

// send makes one request as user, retrying it after an error response
// (a user pressing the button again); into, when set, gets the JSON
// answer. Past maxHTTPErrorShare of the client's requests the error fails
// the cell.
func (hw *httpWorker) send(ctx context.Context, user int, method, path string, body any, into any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	for attempt := 0; ; attempt++ {
		hw.requests++
		req, err := http.NewRequestWithContext(ctx, method, hw.base+path, bytes.NewReader(payload))
		if err != nil {
			return err
		}
		req.Header.Set("X-Redmine-API-Key", hw.wd.apiKey(user))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hw.client.Do(req)
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
		}
		if method == http.MethodGet {
			hw.out.Reads++
		} else {
			hw.out.Writes++
		}
		if resp.StatusCode < 400 {
			if into != nil {
				if err := json.Unmarshal(data, into); err != nil {
					return fmt.Errorf("%s %s: answer is not the JSON expected: %v", method, path, err)
				}
			}
			return nil
		}
		e := &ErrHTTP{Method: method, Path: path, Status: resp.StatusCode, Body: string(bytes.TrimSpace(data[:min(len(data), 500)]))}
		if resp.StatusCode >= 500 {
			hw.errors5xx++
		} else {
			hw.errors4xx++
		}
		if hw.firstError == "" {
			hw.firstError = e.Error()
			hw.w.noteHTTPError(hw.firstError)
		}
		if float64(hw.errors4xx+hw.errors5xx) > maxHTTPErrorShare*float64(max(hw.requests, 100)) || attempt >= httpRetries {
			return fmt.Errorf("Redmine answered %d errors in %d requests (more than %.0f%%); first: %s", hw.errors4xx+hw.errors5xx, hw.requests, maxHTTPErrorShare*100, hw.firstError)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(10*(attempt+1)) * time.Millisecond):
		}
	}
}

type issueJSON struct {
	ID       int     `json:"id"`
	Status   idJSON  `json:"status"`
	Author   idJSON  `json:"author"`
	Assigned *idJSON `json:"assigned_to"`
	Parent   *idJSON `json:"parent"`
}

type idJSON struct {
	ID int `json:"id"`
}

// createCycle draws as the SQL worker's does and sends the requests.
func (hw *httpWorker) createCycle() *cycle {
	c := &cycle{kind: opCreate}
	p, ms, a, author, assignee, parent, subject, description := hw.wd.drawCreate(hw.rng, &hw.cycles)
	c.steps = append(c.steps, func(ctx context.Context) error {
		fields := map[string]any{"project_id": p + 1, "tracker_id": 1, "subject": subject, "description": description, "assigned_to_id": assignee}
		if parent != 0 {
			fields["parent_issue_id"] = parent
		}
		var created struct {
			Issue issueJSON `json:"issue"`
		}
		if err := hw.send(ctx, author, http.MethodPost, "/issues.json", map[string]any{"issue": fields}, &created); err != nil {
			return err
		}
		if created.Issue.ID == 0 {
			return errors.New("POST /issues.json: the answer names no issue")
		}
		c.issue = int64(created.Issue.ID)
		hw.committed.issuesCreated++
		hw.committed.logicalBytes += int64(len(subject) + len(description))
		if parent != 0 {
			hw.committed.journals++ // the parent's child_id journal
			hw.committed.details++
		}
		if hw.pool != nil {
			hw.pool.assigned(assignee)
		}
		return nil
	})
	for k := 0; k < commentsPerIssue; k++ {
		commenter := ms[(a+1+k%(len(ms)-1))%len(ms)]
		notes := hw.wd.pool.cut(hw.rng, commentLen(hw.rng))
		c.steps = append(c.steps, func(ctx context.Context) error {
			path := "/issues/" + strconv.FormatInt(c.issue, 10) + ".json"
			if err := hw.send(ctx, commenter, http.MethodPut, path, map[string]any{"issue": map[string]any{"notes": notes}}, nil); err != nil {
				return err
			}
			hw.committed.comments++
			hw.committed.journals++
			hw.committed.logicalBytes += int64(len(notes))
			return nil
		})
	}
	return c
}

// processCycle lists the user's New issues, moves each to In Progress,
// then each to Resolved, handed back to its author.
func (hw *httpWorker) processCycle(user int) *cycle {
	c := &cycle{kind: opProcess10, user: user}
	c.steps = append(c.steps, func(ctx context.Context) error {
		var list struct {
			Issues []issueJSON `json:"issues"`
		}
		if err := hw.send(ctx, user, http.MethodGet, fmt.Sprintf("/issues.json?assigned_to_id=me&status_id=%d&limit=%d", statusNew, listLength), nil, &list); err != nil {
			return err
		}
		hw.listedIssues(len(list.Issues))
		for _, is := range list.Issues {
			is := is
			c.steps = append(c.steps, func(ctx context.Context) error { return hw.move(ctx, user, is, statusInProgress, 0) })
		}
		for _, is := range list.Issues {
			is := is
			c.steps = append(c.steps, func(ctx context.Context) error {
				return hw.move(ctx, user, is, statusResolved, is.Author.ID)
			})
		}
		return nil
	})
	return c
}

// move PUTs a new status (and assignee): one journal, a detail per field
// that changes.
func (hw *httpWorker) move(ctx context.Context, user int, is issueJSON, status, assignee int) error {
	fields := map[string]any{"status_id": status}
	if assignee != 0 && assignee != user {
		fields["assigned_to_id"] = assignee
	}
	if err := hw.send(ctx, user, http.MethodPut, "/issues/"+strconv.Itoa(is.ID)+".json", map[string]any{"issue": fields}, nil); err != nil {
		return err
	}
	hw.committed.journals++
	hw.committed.details++
	if _, ok := fields["assigned_to_id"]; ok {
		hw.committed.details++
	}
	if status == statusResolved {
		hw.committed.resolved++
	}
	return nil
}
