package models

import (
	"fmt"
	"regexp"
	"strings"

	"gorm.io/gorm"
)

// unsetEntryPrices lets an entry's input and output prices be unset: they
// were NOT NULL DEFAULT 0, so 0 stood for both "free" and "not typed".
// Every 0 becomes unset, so that the price catalog prices the entry, and an
// entry the catalog does not know is unpriced (a budget refuses it) rather
// than free. Only the small deployments table changes; on SQLite that is a
// copy of it, as SQLite cannot drop a NOT NULL in place.
func unsetEntryPrices(tx *gorm.DB) error {
	cols, err := tx.Migrator().ColumnTypes(&Deployment{})
	if err != nil {
		return err
	}
	for _, c := range cols {
		if c.Name() != "input_price" && c.Name() != "output_price" {
			continue
		}
		if nullable, ok := c.Nullable(); ok && nullable {
			continue // created nullable: nothing to change
		}
		if err := dropNotNull(tx, c.Name()); err != nil {
			return fmt.Errorf("%s: %w", c.Name(), err)
		}
		if err := tx.Exec("UPDATE deployments SET " + c.Name() + " = NULL WHERE " + c.Name() + " = 0").Error; err != nil {
			return err
		}
	}
	return nil
}

func dropNotNull(tx *gorm.DB, column string) error {
	if tx.Dialector.Name() == "postgres" {
		return tx.Exec("ALTER TABLE deployments ALTER COLUMN " + column + " DROP NOT NULL, ALTER COLUMN " + column + " DROP DEFAULT").Error
	}
	return rebuildSQLiteTable(tx, "deployments", func(ddl string) (string, error) {
		def := regexp.MustCompile("(?i)(`" + column + "` real) NOT NULL DEFAULT 0")
		if !def.MatchString(ddl) {
			return "", fmt.Errorf("unexpected definition: %s", ddl)
		}
		return def.ReplaceAllString(ddl, "$1"), nil
	})
}

// rebuildSQLiteTable changes a table's definition the way SQLite allows
// (its ALTER TABLE cannot drop a constraint): a copy of the table under the
// new definition, rows and indexes and autoincrement counter included, that
// then takes the table's name. It runs in the caller's transaction, on its
// connection; no other table references the ones rebuilt here.
func rebuildSQLiteTable(tx *gorm.DB, table string, edit func(ddl string) (string, error)) error {
	var ddl string
	if err := tx.Raw("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", table).Scan(&ddl).Error; err != nil {
		return err
	}
	var indexes []string
	if err := tx.Raw("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", table).Scan(&indexes).Error; err != nil {
		return err
	}
	cols, err := tx.Migrator().ColumnTypes(table)
	if err != nil {
		return err
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = "`" + c.Name() + "`"
	}
	next, err := edit(ddl)
	if err != nil {
		return err
	}
	temp := table + "__rebuilt"
	head := regexp.MustCompile("^CREATE TABLE\\s+[`\"]?" + table + "[`\"]?\\s*")
	loc := head.FindStringIndex(next)
	if loc == nil {
		return fmt.Errorf("unexpected definition of %s: %s", table, ddl)
	}
	create := next[loc[1]:]
	list := strings.Join(names, ",")
	steps := []string{
		"CREATE TABLE `" + temp + "` " + create,
		"INSERT INTO `" + temp + "` (" + list + ") SELECT " + list + " FROM `" + table + "`",
		"UPDATE sqlite_sequence SET seq = (SELECT seq FROM sqlite_sequence WHERE name = '" + table + "') WHERE name = '" + temp + "'",
		"DROP TABLE `" + table + "`",
		"ALTER TABLE `" + temp + "` RENAME TO `" + table + "`",
	}
	for _, q := range append(steps, indexes...) {
		if err := tx.Exec(q).Error; err != nil {
			return fmt.Errorf("rebuild %s: %w", table, err)
		}
	}
	return nil
}
