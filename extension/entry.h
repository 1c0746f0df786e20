// entry.h: the connections the extension keeps per database.
#ifndef SQLNB_ENTRY_H
#define SQLNB_ENTRY_H

#include <pthread.h>
#include <stdbool.h>

// NB_KEPT is how many connections the extension opens on each database at LOAD: the only moment DuckDB's C
// API gives a database handle. Model lookups at bind time, training and cross-validation run on them
// (nested: a training query binds functions that look models up, so udf keeps a quarter of them for the
// lookups); a pool is kept for the life of the process, like the database it holds open (README "Use from
// any DuckDB client").
#define NB_KEPT 16

typedef struct nb_kept {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	int n;
	void *conns[NB_KEPT];
	bool busy[NB_KEPT];
	struct nb_kept *next;
} nb_kept;

extern nb_kept *nb_pending_open;

char *nb_abi_check(void);

#endif
