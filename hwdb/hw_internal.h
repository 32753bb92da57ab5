/* hwdb internals shared by hw_db.c (loader) and hw_show.c (printing); not part of the public API.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_HW_INTERNAL_H
#define SCALEPLAN_HW_INTERNAL_H

#include "hwdb/hw.h"

/* One built-in table, embedded by the rule in hwdb/module.mk ($(BUILD)/gen/hwdb_data.c). */
typedef struct hw_embedded {
	const char *name;          /* "gpus.csv" */
	const unsigned char *data; /* file bytes, not NUL-terminated */
	size_t len_B;
} hw_embedded;

extern const hw_embedded hw_embedded_tables[];
extern const int hw_embedded_ntables;

/* Column types of the schema. */
typedef enum hw_coltype {
	HW_C_ID,    /* char *, required, unique within the kind */
	HW_C_TEXT,  /* char * */
	HW_C_DATE,  /* char *, YYYY, YYYY-MM or YYYY-MM-DD */
	HW_C_NUM,   /* double, NAN when empty */
	HW_C_INT,   /* int, 0 when empty */
	HW_C_ENUM,  /* int index into names[] */
	HW_C_REF,   /* char *, id of an item of kind ref */
} hw_coltype;

typedef struct hw_col {
	const char *name;          /* CSV header name */
	hw_coltype type;
	bool required;             /* the cell may not be empty */
	size_t off;                /* offset of the field in the item struct */
	double min, max;           /* accepted range for NUM / INT */
	const char *unit;          /* what is expected, for messages: "FLOP/s, e.g. 1.4e13" */
	const char *const *names;  /* ENUM: NULL-terminated names */
	hw_kind ref;               /* REF: kind referred to */
	bool omittable;            /* a column added later: a table without it reads as all empty */
} hw_col;

typedef struct hw_kind_desc {
	const char *name;          /* "gpus" (file gpus.csv) */
	const char *singular;      /* "gpu" */
	size_t size;               /* sizeof item */
	size_t arr_off, n_off;     /* offsetof(hw_db, gpus), offsetof(hw_db, ngpus) */
	const hw_col *cols;
	int ncols;
} hw_kind_desc;

extern const hw_kind_desc hw_kinds[HW_NKINDS];
extern const char *const hw_topo_names[];
extern const char *const hw_link_kind_names[];
extern const char *const hw_data_path_names[];
extern const char *const hw_staging_names[];
extern const char *const hw_tensor_eff_names[];

/* Generic access to item i of a kind. */
void *hw_item(const hw_db *db, hw_kind kind, int i);
int hw_count(const hw_db *db, hw_kind kind);
/* Item of a kind by id or alias (case-insensitive); NULL when absent. */
const void *hw_find(const hw_db *db, hw_kind kind, const char *id);

/* ---- Used only inside hwdb/ (and its tests) ---- */
const hw_arch *hw_arch_find(const hw_db *db, const char *id);
const char *hw_data_path_name(hw_data_path d);   /* "cpu", "gpu" */
/* Parses one table from a buffer into *db as an overlay (used by the fuzzer and tests); `name` is the
 * file name used in messages and must be "<kind>.csv". Same contract as hw_db_overlay_dir. */
int hw_db_overlay_buf(hw_db *db, const char *name, const char *buf, size_t len_B, FILE *errs);
/* Writes one table (HW_SYSTEM or HW_CPU) with every column of the schema, notes as # comments.
 * 0 or ERR_ENV. */
int hw_import_write_table(const hw_import *imp, hw_kind kind, FILE *out);
const char *hw_link_kind_name(hw_link_kind kind);
const char *hw_staging_name(hw_staging st);      /* "none", "local" */
const char *hw_topo_name(hw_topo topo);

#endif
