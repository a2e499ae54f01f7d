// The C callbacks of Go virtual table modules (see vtab.go): each passes its arguments on to
// an exported Go function, with the module's user data and the tables' and cursors' states as
// integers (cgo.Handle values), never as pointers.
#include <stdbool.h>
#include <stdint.h>
#include "sqlbatch.h"
#include "_cgo_export.h"

int32_t gosb_vtab_connect_tramp(void *ud, sqlbatch_vtab_call *call, bool create, const sqlbatch_str *args,
		size_t n_args, void **out_table) {
	return gosbVtabConnect((uintptr_t)ud, call, create, (sqlbatch_str *)args, n_args, (uintptr_t *)out_table);
}

int32_t gosb_vtab_best_index_tramp(void *ud, sqlbatch_vtab_call *call, void *table, sqlbatch_vtab_index *index) {
	return gosbVtabBestIndex((uintptr_t)ud, call, (uintptr_t)table, index);
}

int32_t gosb_vtab_open_tramp(void *ud, sqlbatch_vtab_call *call, void *table, void **out_cursor) {
	return gosbVtabOpen((uintptr_t)ud, call, (uintptr_t)table, (uintptr_t *)out_cursor);
}

int32_t gosb_vtab_filter_tramp(void *ud, sqlbatch_vtab_call *call, void *cursor, int32_t idx_num,
		const sqlbatch_vtab_arg *args, size_t n_args, const uint8_t *data) {
	return gosbVtabFilter((uintptr_t)ud, call, (uintptr_t)cursor, idx_num, (sqlbatch_vtab_arg *)args, n_args,
		(uint8_t *)data);
}

int32_t gosb_vtab_fill_tramp(void *ud, sqlbatch_vtab_call *call, void *cursor, size_t max_rows) {
	return gosbVtabFill((uintptr_t)ud, call, (uintptr_t)cursor, max_rows);
}

void gosb_vtab_close_tramp(void *ud, void *cursor) { gosbVtabClose((uintptr_t)ud, (uintptr_t)cursor); }

void gosb_vtab_disconnect_tramp(void *ud, void *table, bool destroy) {
	gosbVtabDisconnect((uintptr_t)ud, (uintptr_t)table, destroy);
}

int32_t gosb_vtab_update_tramp(void *ud, sqlbatch_vtab_call *call, void *table, const sqlbatch_vtab_change *change,
		int64_t *out_rowid) {
	return gosbVtabUpdate((uintptr_t)ud, call, (uintptr_t)table, (sqlbatch_vtab_change *)change, out_rowid);
}

void gosb_vtab_destroy_tramp(void *ud) { gosbVtabDestroy((uintptr_t)ud); }
