package models

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// StoredResponse is an answer of the Responses API kept so that a later
// request of the same key can continue from it (previous_response_id), point
// at its items (item_reference) or read it again (GET /v1/responses/{id}).
// Whatever member served it, the gateway keeps it: a pool may mix providers.
type StoredResponse struct {
	KeyID     int64     `gorm:"primaryKey;autoIncrement:false"`
	ID        string    `gorm:"primaryKey;size:128"`
	CreatedAt time.Time `gorm:"index;not null"`
	Model     string    `gorm:"size:255;not null;default:''"`
	// Input is the JSON list of every input item of the request, those of
	// the responses it continued first: what the model was given.
	Input string `gorm:"type:text;not null"`
	// Response is the JSON response object as the caller received it.
	Response string `gorm:"type:text;not null"`
	// Items are the response's output items, by their ids.
	Items []StoredResponseItem `gorm:"-"`
}

// StoredResponseItem is one output item of a stored response, found by its
// id for an item_reference.
type StoredResponseItem struct {
	KeyID      int64     `gorm:"primaryKey;autoIncrement:false"`
	ID         string    `gorm:"primaryKey;size:128"`
	ResponseID string    `gorm:"index;size:128;not null"`
	CreatedAt  time.Time `gorm:"index;not null"`
	Item       string    `gorm:"type:text;not null"`
}

// SettingResponsesRetentionDays names the setting that says how many days
// stored responses are kept; unset keeps them DefaultResponsesRetentionDays,
// 0 for ever.
const SettingResponsesRetentionDays = "responses_retention_days"

// DefaultResponsesRetentionDays is OpenAI's own.
const DefaultResponsesRetentionDays = 30

// saveResponses stores responses and their items in the log writer's
// transaction. Ids are the key's: a later response under an id already
// stored (an upstream whose ids repeat) replaces the earlier, as does the
// same entry written twice.
func saveResponses(tx *gorm.DB, rs []StoredResponse) error {
	if len(rs) == 0 {
		return nil
	}
	var items []StoredResponseItem
	for i := range rs {
		items = append(items, rs[i].Items...)
	}
	if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).CreateInBatches(rs, 100).Error; err != nil {
		return wrap(err, "store responses")
	}
	if len(items) == 0 {
		return nil
	}
	return wrap(tx.Clauses(clause.OnConflict{UpdateAll: true}).CreateInBatches(items, 200).Error, "store response items")
}

// ResponseRef names a stored response.
type ResponseRef struct {
	KeyID int64  `json:"key_id"`
	ID    string `json:"id"`
}

// forgetResponses deletes responses and their items in the log writer's
// transaction, after those it stores.
func forgetResponses(tx *gorm.DB, refs []ResponseRef) error {
	for _, r := range refs {
		if err := tx.Where("id = ? AND key_id = ?", r.ID, r.KeyID).Delete(&StoredResponse{}).Error; err != nil {
			return wrap(err, "delete response %q", r.ID)
		}
		if err := tx.Where("response_id = ? AND key_id = ?", r.ID, r.KeyID).Delete(&StoredResponseItem{}).Error; err != nil {
			return wrap(err, "delete the items of response %q", r.ID)
		}
	}
	return nil
}

// GetResponse returns a response stored for the key.
func (s *Store) GetResponse(ctx context.Context, keyID int64, id string) (*StoredResponse, error) {
	var r StoredResponse
	err := s.g(ctx).Where("id = ? AND key_id = ?", id, keyID).Take(&r).Error
	if err != nil {
		return nil, wrap(err, "response %q", id)
	}
	return &r, nil
}

// GetResponseItems returns the stored output items of the key's responses
// among ids, by id.
func (s *Store) GetResponseItems(ctx context.Context, keyID int64, ids []string) (map[string]string, error) {
	var items []StoredResponseItem
	if err := s.g(ctx).Where("key_id = ? AND id IN ?", keyID, ids).Find(&items).Error; err != nil {
		return nil, wrap(err, "response items")
	}
	out := make(map[string]string, len(items))
	for _, it := range items {
		out[it.ID] = it.Item
	}
	return out, nil
}

// DeleteResponse deletes a response stored for the key, with its items.
func (s *Store) DeleteResponse(ctx context.Context, keyID int64, id string) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Where("id = ? AND key_id = ?", id, keyID).Delete(&StoredResponse{})
		if res.Error != nil {
			return wrap(res.Error, "delete response %q", id)
		}
		if res.RowsAffected == 0 {
			return wrap(gorm.ErrRecordNotFound, "response %q", id)
		}
		return wrap(tx.Where("response_id = ? AND key_id = ?", id, keyID).Delete(&StoredResponseItem{}).Error,
			"delete the items of response %q", id)
	})
}

// PruneResponses deletes responses stored before t, with their items, and
// says how many responses went.
func (s *Store) PruneResponses(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.g(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Where("created_at < ?", before).Delete(&StoredResponse{})
		if res.Error != nil {
			return res.Error
		}
		n = res.RowsAffected
		return tx.Where("created_at < ?", before).Delete(&StoredResponseItem{}).Error
	})
	return n, wrap(err, "prune responses")
}
