// The C callbacks of the preupdate hook, the trace callback, a changeset apply's filter and
// conflict callbacks and a changeset read's callback (see preupdate.go and session.go): each
// passes its arguments on to an exported Go function, with the user data as an integer (a
// cgo.Handle value) and each string with its length (measured here, as in hooks_tramp.c).
#include <stdint.h>
#include <string.h>
#include "sqlbatch.h"
#include "_cgo_export.h"

void gosb_preupdate_tramp(void *ud, const sqlbatch_preupdate *change) {
	gosbPreUpdate((uintptr_t)ud, (sqlbatch_preupdate *)change);
}

void gosb_trace_tramp(void *ud, const sqlbatch_trace_event *event) {
	gosbTrace((uintptr_t)ud, (sqlbatch_trace_event *)event);
}

int32_t gosb_filter_tramp(void *ud, const char *table) {
	return gosbFilter((uintptr_t)ud, (char *)table, table ? strlen(table) : 0);
}

int32_t gosb_conflict_tramp(void *ud, const sqlbatch_conflict *conflict) {
	return gosbConflict((uintptr_t)ud, (sqlbatch_conflict *)conflict);
}

int32_t gosb_changeset_read_tramp(void *ud, const sqlbatch_changeset_change *changes, size_t n,
		const uint8_t *data) {
	return gosbChangesetRead((uintptr_t)ud, (sqlbatch_changeset_change *)changes, n, (uint8_t *)data);
}
