package cluster

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cooldown is a member set aside until a deadline.
type Cooldown struct {
	DeploymentID int64
	Until        time.Time
	Reason       string
}

// Binding is a sticky route: a public name to one member until a deadline.
type Binding struct {
	Name         string
	DeploymentID int64
	Until        time.Time
	Manual       bool
}

// Mirror is what a replica does with the state the others share. Its
// methods change only the replica's own memory; they are called from one
// goroutine, in the order the changes were published.
type Mirror interface {
	// CoolDown extends a member's cooldown to until (never shortens it).
	CoolDown(c Cooldown)
	// EndCooldown ends a member's cooldown.
	EndCooldown(deploymentID int64)
	// Bind sets a sticky binding.
	Bind(b Binding)
	// Unbind drops the binding of name if it points at deploymentID (any
	// member when 0); name "" drops every binding.
	Unbind(name string, deploymentID int64)
	// LocalCooldowns are the replica's live cooldowns, shared again when
	// Redis has lost what it held.
	LocalCooldowns() []Cooldown
	// Replace makes the shared state the replica's: its cooldowns and
	// bindings become the replica's, and the replica's that Redis does not
	// have end (another replica ended them while this one was not
	// listening). Called after every (re)connection, once the cooldowns
	// this replica set without Redis (or all of its own, when Redis lost
	// its state) have been shared.
	Replace(cooldowns []Cooldown, bindings []Binding)
}

// Messages on the channel, one line each:
//
//	c|<id>|<until ms>|<reason>    a cooldown extended
//	e|<id>                        a cooldown ended
//	s|<until ms>|<id>|<0|1>|<name> a binding set (1: an admin's pin)
//	u|<id>|<name>                 a binding dropped (id 0: whatever it was)
//	U                             every binding dropped
//
// Hash values start with the deadline, so that one pattern finds it.

// coolScript extends a cooldown, never shortening one, and tells the others.
var coolScript = redis.NewScript(`
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local u = tonumber(string.match(cur, '^(%d+)'))
  if u and u >= tonumber(ARGV[2]) then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. ARGV[3])
redis.call('PUBLISH', ARGV[4], 'c|' .. ARGV[1] .. '|' .. ARGV[2] .. '|' .. ARGV[3])
return 1`)

// endCoolScript ends a cooldown everywhere.
var endCoolScript = redis.NewScript(`
local n = redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], 'e|' .. ARGV[1])
return n`)

// bindScript sets a binding. An automatic one (ARGV[5] "auto") never
// replaces a live pin of an admin's.
var bindScript = redis.NewScript(`
if ARGV[5] == 'auto' then
  local cur = redis.call('HGET', KEYS[1], ARGV[1])
  if cur then
    local u, _, m = string.match(cur, '^(%d+)|(%d+)|(%d)$')
    local t = redis.call('TIME')
    if m == '1' and tonumber(u) > tonumber(t[1]) * 1000 then return 0 end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. ARGV[3] .. '|' .. ARGV[4])
redis.call('PUBLISH', ARGV[6], 's|' .. ARGV[2] .. '|' .. ARGV[3] .. '|' .. ARGV[4] .. '|' .. ARGV[1])
return 1`)

// unbindScript drops a binding if it points at ARGV[2] (any when "0"), or
// every binding when ARGV[1] is empty; it returns how many it dropped.
var unbindScript = redis.NewScript(`
if ARGV[1] == '' then
  local n = redis.call('HLEN', KEYS[1])
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[3], 'U')
  return n
end
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return 0 end
if ARGV[2] ~= '0' and string.match(cur, '^%d+|(%d+)') ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[3], 'u|' .. ARGV[2] .. '|' .. ARGV[1])
return 1`)

// loadScript returns the live entries of the hashes in KEYS, deleting the
// lapsed ones, with Redis's time in ms first.
var loadScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {now}
for i, k in ipairs(KEYS) do
  local all = redis.call('HGETALL', k)
  local live = {}
  for f = 1, #all, 2 do
    local u = tonumber(string.match(all[f + 1], '^(%d+)'))
    if u and u > now then
      live[#live + 1] = all[f]
      live[#live + 1] = all[f + 1]
    else
      redis.call('HDEL', k, all[f])
    end
  end
  out[i + 1] = live
end
return out`)

// CoolDown shares a cooldown, without waiting: it is queued behind the
// writes before it. One that does not reach Redis is shared at the next
// resync.
func (c *Cluster) CoolDown(cd Cooldown) { c.enqueue(op{cool: &cd}) }

func (c *Cluster) coolCmd(ctx context.Context, p redis.Pipeliner, cd Cooldown) redis.Cmder {
	return coolScript.EvalSha(ctx, p, []string{c.keys.cooldowns}, strconv.FormatInt(cd.DeploymentID, 10),
		cd.Until.UnixMilli(), oneLine(cd.Reason), c.keys.channel)
}

// keepUnshared remembers a cooldown that did not reach Redis.
func (c *Cluster) keepUnshared(cd Cooldown) {
	c.unsharedMu.Lock()
	defer c.unsharedMu.Unlock()
	if cur, ok := c.unshared[cd.DeploymentID]; !ok || cd.Until.After(cur.Until) {
		c.unshared[cd.DeploymentID] = cd
	}
}

// takeUnshared returns the cooldowns that did not reach Redis, still live
// at now, and forgets them.
func (c *Cluster) takeUnshared(now time.Time) []Cooldown {
	c.unsharedMu.Lock()
	defer c.unsharedMu.Unlock()
	var out []Cooldown
	for id, cd := range c.unshared {
		if cd.Until.After(now) {
			out = append(out, cd)
		}
		delete(c.unshared, id)
	}
	return out
}

// EndCooldown ends a member's cooldown on every replica.
func (c *Cluster) EndCooldown(ctx context.Context, deploymentID int64) error {
	ctx, cancel := c.commandContext(ctx)
	defer cancel()
	err := endCoolScript.Run(ctx, c.rdb, []string{c.keys.cooldowns}, strconv.FormatInt(deploymentID, 10), c.keys.channel).Err()
	c.failed(err)
	return err
}

// BindAfterSuccess shares an automatic binding without waiting; it does not
// replace an admin's live pin.
func (c *Cluster) BindAfterSuccess(b Binding) {
	c.enqueue(op{fn: func(ctx context.Context, p redis.Pipeliner) {
		c.bind(ctx, p, b, "auto")
	}})
}

// Pin shares an admin's pin.
func (c *Cluster) Pin(ctx context.Context, b Binding) error {
	ctx, cancel := c.commandContext(ctx)
	defer cancel()
	b.Manual = true
	err := c.bind(ctx, c.rdb, b, "pin").Err()
	c.failed(err)
	return err
}

// bind runs the bind script on the client (Run, which falls back to EVAL)
// or in a pipeline (EVALSHA: scripts are loaded at each connection).
func (c *Cluster) bind(ctx context.Context, s redis.Scripter, b Binding, mode string) *redis.Cmd {
	manual := "0"
	if b.Manual {
		manual = "1"
	}
	keys, args := []string{c.keys.sticky}, []any{b.Name, b.Until.UnixMilli(),
		strconv.FormatInt(b.DeploymentID, 10), manual, mode, c.keys.channel}
	if p, ok := s.(redis.Pipeliner); ok {
		return bindScript.EvalSha(ctx, p, keys, args...)
	}
	return bindScript.Run(ctx, s, keys, args...)
}

// UnbindFailed drops the binding of name if it points at the member that
// failed, without waiting.
func (c *Cluster) UnbindFailed(name string, deploymentID int64) {
	c.enqueue(op{fn: func(ctx context.Context, p redis.Pipeliner) {
		unbindScript.EvalSha(ctx, p, []string{c.keys.sticky}, name, strconv.FormatInt(deploymentID, 10), c.keys.channel)
	}})
}

// Unbind drops the binding of name, or every binding when name is "", and
// reports how many there were.
func (c *Cluster) Unbind(ctx context.Context, name string) (int64, error) {
	ctx, cancel := c.commandContext(ctx)
	defer cancel()
	n, err := unbindScript.Run(ctx, c.rdb, []string{c.keys.sticky}, name, "0", c.keys.channel).Int64()
	c.failed(err)
	return n, err
}

// follow applies what the others publish, and loads the whole shared state
// each time the subscription is (re)made: what was published while this
// replica was not listening is in it.
func (c *Cluster) follow() {
	ps := c.rdb.Subscribe(c.ctx, c.keys.channel)
	defer ps.Close()
	ch := ps.ChannelWithSubscriptions(redis.WithChannelSize(1024))
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.resyncs:
			c.resync()
		case m, ok := <-ch:
			if !ok {
				return
			}
			switch m := m.(type) {
			case *redis.Subscription:
				if m.Kind == "subscribe" {
					c.resync()
				}
			case *redis.Message:
				c.apply(m.Payload)
			}
		}
	}
}

// resync shares the cooldowns this replica set without Redis, then takes
// the whole shared state. A failure is retried by the next subscription.
func (c *Cluster) resync() {
	ctx, cancel := context.WithTimeout(c.ctx, 5*c.timeout)
	defer cancel()
	if err := c.loadScripts(ctx); err != nil {
		c.failed(err)
		return
	}
	cools := c.takeUnshared(time.Now())
	lost, err := c.newEpoch(ctx)
	if err != nil {
		c.keepAll(cools)
		c.failed(err)
		return
	}
	if lost {
		// Redis restarted empty: what every replica mirrors is all that is
		// left of the shared cooldowns.
		cools = append(cools, c.mirror.LocalCooldowns()...)
	}
	if len(cools) > 0 {
		p := c.rdb.Pipeline()
		for _, cd := range cools {
			c.coolCmd(ctx, p, cd)
		}
		if _, err := p.Exec(ctx); err != nil {
			c.keepAll(cools)
			c.failed(err)
			c.log.Warn("could not share the cooldowns set while redis was unreachable", "err", err)
			return
		}
	}
	res, err := loadScript.Run(ctx, c.rdb, []string{c.keys.cooldowns, c.keys.sticky}).Slice()
	if err != nil || len(res) != 3 {
		c.failed(err)
		c.log.Warn("could not load the shared cooldowns and sticky bindings", "err", err)
		return
	}
	c.mirror.Replace(parseCooldowns(res[1]), parseBindings(res[2]))
	c.setUp(true, nil)
	c.syncedOnce.Do(func() { close(c.synced) })
}

// newEpoch reports whether Redis lost what it held since this replica
// last looked (the first look counts as a loss: nothing was shared yet).
func (c *Cluster) newEpoch(ctx context.Context) (bool, error) {
	p := c.rdb.Pipeline()
	p.SetNX(ctx, c.keys.epoch, strconv.FormatInt(time.Now().UnixNano(), 36), 0)
	get := p.Get(ctx, c.keys.epoch)
	if _, err := p.Exec(ctx); err != nil {
		return false, err
	}
	lost := get.Val() != c.epoch
	c.epoch = get.Val()
	return lost, nil
}

// keepAll remembers cooldowns that could not be shared.
func (c *Cluster) keepAll(cools []Cooldown) {
	for _, cd := range cools {
		c.keepUnshared(cd)
	}
}

// apply hands one published change to the mirror.
func (c *Cluster) apply(payload string) {
	kind, rest, _ := strings.Cut(payload, "|")
	switch kind {
	case "c":
		idText, rest, _ := strings.Cut(rest, "|")
		untilText, reason, _ := strings.Cut(rest, "|")
		id, err1 := strconv.ParseInt(idText, 10, 64)
		until, err2 := strconv.ParseInt(untilText, 10, 64)
		if err1 == nil && err2 == nil {
			c.mirror.CoolDown(Cooldown{DeploymentID: id, Until: time.UnixMilli(until), Reason: reason})
		}
	case "e":
		if id, err := strconv.ParseInt(rest, 10, 64); err == nil {
			c.mirror.EndCooldown(id)
		}
	case "s":
		if b, ok := parseBinding(rest); ok {
			c.mirror.Bind(b)
		}
	case "u":
		idText, name, _ := strings.Cut(rest, "|")
		if id, err := strconv.ParseInt(idText, 10, 64); err == nil && name != "" {
			c.mirror.Unbind(name, id)
		}
	case "U":
		c.mirror.Unbind("", 0)
	}
}

// parseBinding reads "<until ms>|<id>|<0|1>|<name>".
func parseBinding(s string) (Binding, bool) {
	parts := strings.SplitN(s, "|", 4)
	if len(parts) != 4 {
		return Binding{}, false
	}
	until, err1 := strconv.ParseInt(parts[0], 10, 64)
	id, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil || parts[3] == "" {
		return Binding{}, false
	}
	return Binding{Name: parts[3], DeploymentID: id, Until: time.UnixMilli(until), Manual: parts[2] == "1"}, true
}

// parseCooldowns reads the live entries of the cooldowns hash.
func parseCooldowns(v any) []Cooldown {
	var out []Cooldown
	eachField(v, func(field, value string) {
		id, err1 := strconv.ParseInt(field, 10, 64)
		untilText, reason, _ := strings.Cut(value, "|")
		until, err2 := strconv.ParseInt(untilText, 10, 64)
		if err1 == nil && err2 == nil {
			out = append(out, Cooldown{DeploymentID: id, Until: time.UnixMilli(until), Reason: reason})
		}
	})
	return out
}

// parseBindings reads the live entries of the sticky hash.
func parseBindings(v any) []Binding {
	var out []Binding
	eachField(v, func(field, value string) {
		if b, ok := parseBinding(value + "|" + field); ok {
			out = append(out, b)
		}
	})
	return out
}

// eachField walks a flat list of hash fields and values.
func eachField(v any, fn func(field, value string)) {
	list, _ := v.([]any)
	for i := 0; i+1 < len(list); i += 2 {
		f, _ := list[i].(string)
		val, _ := list[i+1].(string)
		fn(f, val)
	}
}

// oneLine keeps a reason on one line of a message, and short.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 500 {
		s = strings.ToValidUTF8(s[:500], "")
	}
	return s
}
