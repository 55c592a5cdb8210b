package models

import (
	"context"

	"gorm.io/gorm"
)

// CreateTeam stores a team.
func (s *Store) CreateTeam(ctx context.Context, t *Team) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		return createRow(ctx, s, tx, t, "team")
	})
}

// ListTeams returns every team in id order.
func (s *Store) ListTeams(ctx context.Context) ([]Team, error) {
	return listAll[Team](ctx, s, "teams")
}

// GetTeam returns one team.
func (s *Store) GetTeam(ctx context.Context, id int64) (*Team, error) {
	return getByID[Team](ctx, s, id, "team")
}

// UpdateTeam lets apply change the team.
func (s *Store) UpdateTeam(ctx context.Context, id int64, apply func(*Team) error) (*Team, error) {
	return updateByID(ctx, s, id, "team", func(_ *gorm.DB, t *Team) error { return apply(t) })
}

// DeleteTeam deletes a team; its users and keys lose the team.
func (s *Store) DeleteTeam(ctx context.Context, id int64) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		for _, m := range []any{&User{}, &VirtualKey{}} {
			if err := tx.Model(m).Where("team_id = ?", id).Update("team_id", nil).Error; err != nil {
				return wrap(err, "delete team %d", id)
			}
		}
		return deleteByID[Team](ctx, s, tx, id, "team")
	})
}

// CreateUser stores a user.
func (s *Store) CreateUser(ctx context.Context, u *User) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		if err := ownersExist(tx, nil, u.TeamID); err != nil {
			return err
		}
		return createRow(ctx, s, tx, u, "user", "Team")
	})
}

// ListUsers returns every user in id order.
func (s *Store) ListUsers(ctx context.Context) ([]User, error) {
	return listAll[User](ctx, s, "users")
}

// GetUser returns one user.
func (s *Store) GetUser(ctx context.Context, id int64) (*User, error) {
	return getByID[User](ctx, s, id, "user")
}

// UpdateUser lets apply change the user.
func (s *Store) UpdateUser(ctx context.Context, id int64, apply func(*User) error) (*User, error) {
	return updateByID(ctx, s, id, "user", func(tx *gorm.DB, u *User) error {
		if err := apply(u); err != nil {
			return err
		}
		return ownersExist(tx, nil, u.TeamID)
	})
}

// DeleteUser deletes a user; their keys lose the owner.
func (s *Store) DeleteUser(ctx context.Context, id int64) error {
	return s.g(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&VirtualKey{}).Where("user_id = ?", id).Update("user_id", nil).Error; err != nil {
			return wrap(err, "delete user %d", id)
		}
		return deleteByID[User](ctx, s, tx, id, "user")
	})
}
