package udf_test

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/udf"
)

// v1Store copies testdata/v1store/v1.duckdb.gz (written by sqlnb's format-version-1 release, see its README)
// to a temporary file.
func v1Store(t *testing.T) string {
	t.Helper()
	return gunzipTo(t, filepath.Join("..", "testdata", "v1store", "v1.duckdb.gz"), "v1.duckdb")
}

// TestUpgradeVersion1Store opens a database written by the format-version-1 release: read-only, loading a
// model says how to upgrade; opened writable, the store is upgraded on open, every model loads and scores
// the sample rows exactly as that release did (its nb_joint_log_likelihood, relative 1e-12).
func TestUpgradeVersion1Store(t *testing.T) {
	path := v1Store(t)
	ro, err := udf.Open(path + "?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	_, err = sqlnb.Load(context.Background(), ro.DB, "votes")
	if !errors.Is(err, sqlnb.ErrInvalidModel) || !strings.Contains(err.Error(), "sqlnb models upgrade") {
		t.Errorf("read-only version-1 store: %v, want advice to upgrade", err)
	}
	ro.Close()

	db, err := udf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := queryStrings(t, db, `SELECT min(format_version), max(format_version), count(*) FROM nb.models`)
	if got[0][0] != strconv.Itoa(nb.FormatVersion) || got[0][2] != "9" {
		t.Fatalf("after opening: format versions %v", got[0])
	}
	if from, err := sqlnb.Upgrade(context.Background(), db.DB); err != nil || from != nb.FormatVersion {
		t.Errorf("second upgrade: from %d, %v; want nothing to do", from, err)
	}
	// What opening upgraded is known (sqlnb models upgrade said "nothing to do" right after it upgraded).
	if db.UpgradedFrom() != 1 {
		t.Errorf("UpgradedFrom %d, want 1", db.UpgradedFrom())
	}
	fx := filepath.Join("..", "testdata", "fixtures")
	hv := filepath.Join("..", "testdata", "housevotes84", "train.csv")
	mustExec(t, db, fmt.Sprintf(`CREATE TEMP TABLE expected AS FROM read_csv(%s, types = {'class': 'VARCHAR'})`,
		queries.Literal(filepath.Join("..", "testdata", "v1store", "expected_jll.csv"))))
	// The sample rows of testdata/v1store/make.sh.
	mustExec(t, db, fmt.Sprintf(`CREATE TEMP TABLE scored AS
		WITH
		v AS (SELECT row_number() OVER () AS i, * FROM %[1]s LIMIT 40),
		ir AS (SELECT id AS i, * EXCLUDE (id) FROM %[2]s WHERE id %% 5 = 0),
		d AS (SELECT id AS i, * EXCLUDE (id) FROM %[3]s WHERE id %% 50 = 0),
		r AS (SELECT id::INT AS i, topic, text FROM %[4]s WHERE id::INT %% 3 = 0),
		mx AS (SELECT row_number() OVER () AS i, party, "physician-fee-freeze", "el-salvador-aid" = 'y' AS salvador, length("crime") AS crime_len FROM %[1]s LIMIT 40),
		s AS (
		 SELECT 'votes' AS model, i, nb_joint_log_likelihood('votes', v) AS j FROM v
		 UNION ALL SELECT 'iris_w', i, nb_joint_log_likelihood('iris_w', ir) FROM ir
		 UNION ALL SELECT 'iris_pooled', i, nb_joint_log_likelihood('iris_pooled', ir) FROM ir
		 UNION ALL SELECT 'digits_mn', i, nb_joint_log_likelihood('digits_mn', d) FROM d
		 UNION ALL SELECT 'digits_cnb', i, nb_joint_log_likelihood('digits_cnb', d) FROM d
		 UNION ALL SELECT 'digits_bern', i, nb_joint_log_likelihood('digits_bern', d) FROM d
		 UNION ALL SELECT 'news', i, nb_joint_log_likelihood('news', r) FROM r
		 UNION ALL SELECT 'news_bern', i, nb_joint_log_likelihood('news_bern', r) FROM r
		 UNION ALL SELECT 'mixed', i, nb_joint_log_likelihood('mixed', mx) FROM mx)
		SELECT model, i AS row, e.key AS class, e.value AS jll FROM (SELECT model, i, unnest(map_entries(j)) AS e FROM s)`,
		queries.Literal(hv), queries.Literal(filepath.Join(fx, "sklearn_iris_weighted.csv")), queries.Literal(filepath.Join(fx, "digits.csv")),
		queries.Literal(filepath.Join("..", "testdata", "reuters", "reuters.csv"))))
	res := queryStrings(t, db, `SELECT count(*), count(s.jll), max(abs(s.jll - e.jll) / greatest(1, abs(e.jll)))
		FROM expected e LEFT JOIN scored s USING (model, row, class)`)
	worst, _ := strconv.ParseFloat(res[0][2], 64)
	if res[0][0] != "1494" || res[0][1] != "1494" || worst > 1e-12 {
		t.Errorf("version-1 models after upgrade: %s expected scores, %s found, max relative |Δ| %s", res[0][0], res[0][1], res[0][2])
	}
	t.Logf("9 version-1 models upgraded: %s scores equal to the version-1 release's within %.3g", res[0][1], worst)
	// A model saved by this release beside the upgraded ones.
	mustExec(t, db, `CALL nb_set('votes', alpha := 0.5, threshold := 0.001)`)
	if got := queryStrings(t, db, `SELECT params::JSON->>'threshold', format_version FROM nb.models WHERE name = 'votes'`); got[0][0] != "0.001" || got[0][1] != strconv.Itoa(nb.FormatVersion) {
		t.Errorf("nb_set on an upgraded store: %v", got)
	}
}

// TestImportVersion1JSON: a model exported by the format-version-1 release imports and scores as the
// same model stored in its database.
func TestImportVersion1JSON(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "v1store", "votes_v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := sqlnb.Import(f, "votes_json")
	if err != nil {
		t.Fatal(err)
	}
	db, err := udf.Open(v1Store(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := sqlnb.Save(context.Background(), db.DB, m); err != nil {
		t.Fatal(err)
	}
	got := queryStrings(t, db, fmt.Sprintf(`SELECT count(*), max(abs(nb_proba('votes', t, 'democrat') - nb_proba('votes_json', t, 'democrat')))
		FROM %s t`, queries.Literal(filepath.Join("..", "testdata", "housevotes84", "train.csv"))))
	if got[0][1] != "0" {
		t.Errorf("imported version-1 JSON scores differently from the stored model: %v", got[0])
	}
}

// TestUpgradeVersion4Store opens a database written by the format-version-4 release (testdata/v4store, one
// model of every family with hyperparameters away from their defaults): opening it writable upgrades the
// store to format 5, where the hyperparameters are one JSON object (nb.models.params) and the columns
// format 4 kept are gone; every model keeps every hyperparameter that release stored
// (expected_params.csv) and scores the sample rows as it did (expected_jll.csv, relative 1e-12).
func TestUpgradeVersion4Store(t *testing.T) {
	path := gunzipTo(t, filepath.Join("..", "testdata", "v4store", "v4.duckdb.gz"), "v4.duckdb")
	db, err := udf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if db.UpgradedFrom() != 4 {
		t.Errorf("UpgradedFrom %d, want 4", db.UpgradedFrom())
	}
	got := queryStrings(t, db, `SELECT min(format_version), max(format_version), count(*),
		(SELECT count(*) FROM duckdb_columns() WHERE schema_name = 'nb' AND table_name = 'models' AND column_name IN ('alpha', 'c', 'max_iter'))
		FROM nb.models`)
	if got[0][0] != "5" || got[0][1] != "5" || got[0][2] != "10" || got[0][3] != "0" {
		t.Fatalf("after opening: format versions, models, old columns: %v", got[0])
	}
	dir := filepath.Join("..", "testdata", "v4store")
	want := queryStrings(t, db, fmt.Sprintf(`SELECT * EXCLUDE (format_version) FROM read_csv(%s, all_varchar = true) ORDER BY name`,
		queries.Literal(filepath.Join(dir, "expected_params.csv"))))
	cols := []string{"alpha", "var_smoothing", "variance", "priors", "norm", "min_df", "max_features", "threshold", "eps",
		"reg_param", "solver", "shrinkage", "c", "penalty", "tol", "max_iter"}
	if len(want) != 10 {
		t.Fatalf("expected_params.csv: %d models, want 10", len(want))
	}
	for _, row := range want {
		m, err := sqlnb.Load(ctx, db.DB, row[0])
		if err != nil {
			t.Fatal(err)
		}
		for i, name := range cols {
			v, ok := m.Params.Value(name)
			if !ok {
				t.Errorf("model %s: %s missing after the upgrade", row[0], name)
				continue
			}
			if f, isFloat := v.(float64); isFloat {
				w, _ := strconv.ParseFloat(row[i+1], 64)
				if f != w {
					t.Errorf("model %s: %s = %v, format 4 stored %s", row[0], name, v, row[i+1])
				}
			} else if fmt.Sprint(v) != row[i+1] {
				t.Errorf("model %s: %s = %v, format 4 stored %s", row[0], name, v, row[i+1])
			}
		}
	}
	fx := filepath.Join("..", "testdata", "fixtures")
	mustExec(t, db, fmt.Sprintf(`CREATE TEMP TABLE expected AS FROM read_csv(%s, types = {'class': 'VARCHAR'})`,
		queries.Literal(filepath.Join(dir, "expected_jll.csv"))))
	// The sample rows of testdata/v4store/make.sh.
	mustExec(t, db, fmt.Sprintf(`CREATE TEMP TABLE scored AS
		WITH
		v AS (SELECT row_number() OVER () AS i, * FROM %[1]s LIMIT 40),
		ir AS (SELECT id AS i, * EXCLUDE (id) FROM %[2]s WHERE id %% 5 = 0),
		d AS (SELECT id AS i, * EXCLUDE (id) FROM %[3]s WHERE id %% 50 = 0),
		r AS (SELECT id::INT AS i, topic, text FROM %[4]s WHERE id::INT %% 3 = 0),
		p AS (SELECT id AS i, * EXCLUDE (id) FROM %[5]s WHERE id %% 4 = 0),
		s AS (
		 SELECT 'votes' AS model, i, nb_joint_log_likelihood('votes', v) AS j FROM v
		 UNION ALL SELECT 'iris_sample', i, nb_joint_log_likelihood('iris_sample', ir) FROM ir
		 UNION ALL SELECT 'iris_given', i, nb_joint_log_likelihood('iris_given', ir) FROM ir
		 UNION ALL SELECT 'digits_mn', i, nb_joint_log_likelihood('digits_mn', d) FROM d
		 UNION ALL SELECT 'digits_cnb', i, nb_joint_log_likelihood('digits_cnb', d) FROM d
		 UNION ALL SELECT 'news', i, nb_joint_log_likelihood('news', r) FROM r
		 UNION ALL SELECT 'counts_pois', i, nb_joint_log_likelihood('counts_pois', p) FROM p
		 UNION ALL SELECT 'iris_lda', i, nb_joint_log_likelihood('iris_lda', ir) FROM ir
		 UNION ALL SELECT 'iris_qda', i, nb_joint_log_likelihood('iris_qda', ir) FROM ir
		 UNION ALL SELECT 'iris_lr', i, nb_joint_log_likelihood('iris_lr', ir) FROM ir)
		SELECT model, i AS row, e.key AS class, e.value AS jll FROM (SELECT model, i, unnest(map_entries(j)) AS e FROM s)`,
		queries.Literal(filepath.Join("..", "testdata", "housevotes84", "train.csv")), queries.Literal(filepath.Join(fx, "sklearn_iris_weighted.csv")),
		queries.Literal(filepath.Join(fx, "digits.csv")), queries.Literal(filepath.Join("..", "testdata", "reuters", "reuters.csv")),
		queries.Literal(filepath.Join(fx, "poisson_train.csv"))))
	res := queryStrings(t, db, `SELECT count(*), count(s.jll), max(abs(s.jll - e.jll) / greatest(1, abs(e.jll)))
		FROM expected e LEFT JOIN scored s USING (model, row, class)`)
	worst, _ := strconv.ParseFloat(res[0][2], 64)
	if res[0][0] != "1507" || res[0][1] != "1507" || worst > 1e-12 {
		t.Errorf("version-4 models after upgrade: %s expected scores, %s found, max relative |Δ| %s", res[0][0], res[0][1], res[0][2])
	}
	t.Logf("10 version-4 models upgraded: %s scores equal to the version-4 release's within %.3g", res[0][1], worst)
	// The upgraded store takes changes: nb_set writes the params object.
	mustExec(t, db, `CALL nb_set('votes', alpha := 0.5)`)
	if got := queryStrings(t, db, `SELECT params::JSON->>'alpha', params::JSON->>'threshold' FROM nb.models WHERE name = 'votes'`); got[0][0] != "0.5" || got[0][1] != "0.001" {
		t.Errorf("nb_set on an upgraded store: params alpha, threshold = %v", got[0])
	}
}

// gunzipTo writes the gzip file src, uncompressed, to name in a temporary directory and returns its path.
func gunzipTo(t *testing.T, src, name string) string {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
