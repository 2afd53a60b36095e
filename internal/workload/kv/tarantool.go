package kv

import (
	"context"
	"fmt"
	"time"

	"github.com/tarantool/go-tarantool/v3"

	"shootout/internal/proto"
)

type tarantoolStore struct {
	ep      proto.Endpoint
	admin   *tarantool.Connection
	spaceID uint32
}

// tarantoolRow is a tuple of space keyvalue.
type tarantoolRow struct {
	_msgpack struct{} `msgpack:",asArray"` //nolint:unused
	ID       int64
	Value1   int64
	Value2   float64
}

func tarantoolConnect(ctx context.Context, ep proto.Endpoint) (*tarantool.Connection, error) {
	addr := ep.Address
	if ep.Network == "unix" {
		addr = "unix/:" + addr
	}
	return tarantool.Connect(ctx, tarantool.NetDialer{Address: addr, User: ep.User, Password: ep.Password}, tarantool.Opts{Timeout: 60 * time.Second})
}

func newTarantoolStore(ep proto.Endpoint) (store, error) {
	if ep.Engine == "" {
		ep.Engine = "memtx"
	}
	return &tarantoolStore{ep: ep}, nil
}

// tarantoolClaim makes space keyvalue for the rows unless it holds them
// already. Space shootout_kv marks the spaces shootout made: a keyvalue
// space without it is someone else's and is never touched.
const tarantoolClaim = `local rows, engine = ...
if box.space.shootout_kv == nil then
  if box.space.keyvalue ~= nil then return 'taken' end
  box.schema.space.create('shootout_kv', {format = {{'k', 'string'}, {'v', 'unsigned'}}})
  box.space.shootout_kv:create_index('pk', {parts = {'k'}})
end
local m = box.space.shootout_kv:get('rows')
local s = box.space.keyvalue
if m ~= nil and m[2] == rows and s ~= nil and s.engine == engine then return 'reuse', s.id end
if s ~= nil then s:drop() end
box.space.shootout_kv:replace({'rows', 0})
s = box.schema.space.create('keyvalue', {engine = engine, format = {{'id', 'unsigned'}, {'value1', 'integer'}, {'value2', 'number'}}})
s:create_index('primary', {parts = {'id'}})
return 'load', s.id`

func (s *tarantoolStore) claim(ctx context.Context, rows int64) (bool, error) {
	if s.admin == nil {
		c, err := tarantoolConnect(ctx, s.ep)
		if err != nil {
			return false, err
		}
		s.admin = c
	}
	r, err := s.admin.Do(tarantool.NewEvalRequest(tarantoolClaim).Args([]any{rows, s.ep.Engine}).Context(ctx)).Get()
	if err != nil {
		return false, fmt.Errorf("make space keyvalue: %w", err)
	}
	if len(r) == 2 {
		// requests name the space by number: Tarantool 2.6 takes no
		// names in IPROTO (go-tarantool v3 sends them as they are)
		fmt.Sscan(fmt.Sprint(r[1]), &s.spaceID)
	}
	switch fmt.Sprint(r[0]) {
	case "taken":
		return false, fmt.Errorf("this Tarantool has a space keyvalue that shootout did not make (no space shootout_kv): give a Tarantool of its own")
	case "reuse":
		return true, nil
	}
	return false, nil
}

func (s *tarantoolStore) loaded(ctx context.Context, rows int64) error {
	// by eval: this connection's schema predates the space
	_, err := s.admin.Do(tarantool.NewEvalRequest("box.space.shootout_kv:replace({'rows', ...})").Args([]any{rows}).Context(ctx)).Get()
	return err
}

func (s *tarantoolStore) close() error {
	if s.admin != nil {
		return s.admin.Close()
	}
	return nil
}

func (s *tarantoolStore) connect(ctx context.Context) (storeClient, error) {
	c, err := tarantoolConnect(ctx, s.ep)
	if err != nil {
		return nil, err
	}
	return &tarantoolClient{c: c, space: s.spaceID}, nil
}

type tarantoolClient struct {
	c     *tarantool.Connection
	space uint32
	rows  []tarantoolRow
	futs  []tarantool.Future
}

func (t *tarantoolClient) close() error { return t.c.Close() }

// tarantoolPut writes a batch in one transaction: one WAL write per batch.
const tarantoolPut = `local s = box.space.keyvalue
box.begin()
for _, t in ipairs(...) do s:replace(t) end
box.commit()`

func (t *tarantoolClient) put(ctx context.Context, first, last int64) error {
	tuples := make([]any, 0, last-first+1)
	for id := first; id <= last; id++ {
		tuples = append(tuples, []any{uint64(id), value1(id), value2(id)})
	}
	_, err := t.c.Do(tarantool.NewEvalRequest(tarantoolPut).Args([]any{tuples}).Context(ctx)).Get()
	return err
}

func (t *tarantoolClient) selectReq(id int64) tarantool.SelectRequest {
	return tarantool.NewSelectRequest(t.space).Limit(1).Key(tarantool.UintKey{I: uint(id)})
}

func (t *tarantoolClient) get(ctx context.Context, id int64) (int64, float64, bool, error) {
	t.rows = t.rows[:0]
	if err := t.c.Do(t.selectReq(id)).GetTyped(&t.rows); err != nil {
		return 0, 0, false, err
	}
	if len(t.rows) == 0 || t.rows[0].ID != id {
		return 0, 0, false, nil
	}
	return t.rows[0].Value1, t.rows[0].Value2, true, nil
}

// getMany sends one select per id without waiting, then takes the
// answers: IPROTO's pipelining on one connection.
func (t *tarantoolClient) getMany(ctx context.Context, ids []int64, found func(at int, id, v1 int64, v2 float64)) error {
	t.futs = t.futs[:0]
	for _, id := range ids {
		t.futs = append(t.futs, t.c.Do(t.selectReq(id)))
	}
	for i, f := range t.futs {
		t.rows = t.rows[:0]
		if err := f.GetTyped(&t.rows); err != nil {
			return err
		}
		for _, r := range t.rows {
			found(i, r.ID, r.Value1, r.Value2)
		}
	}
	return nil
}
