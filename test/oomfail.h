/*
** oomfail.h — the out-of-memory switch of the C tests: SQLite's allocator
** wrapped so that one chosen allocation fails. A test sets nFailAt = N to
** fail the N-th allocation from then on (once), runs, sets nFailAt = 0,
** and reads bFailed to know whether the run got that far; it loops N = 1,
** 2, ... until a run no longer does. Included by each test program that
** has such a loop (all of it static: one copy per program).
*/
#ifndef DOCEXT_OOMFAIL_H
#define DOCEXT_OOMFAIL_H

static sqlite3_mem_methods defMem;
static int nFailAt = 0;       /* fail the allocation when this reaches 1 */
static int bFailed = 0;       /* an allocation was failed */

/* A place for a debugger's breakpoint: the allocation that fails. */
static void oomHit(void){ bFailed = 1; }

static void *oomMalloc(int n){
  if( nFailAt>0 && --nFailAt==0 ){ oomHit(); return 0; }
  return defMem.xMalloc(n);
}
static void *oomRealloc(void *p, int n){
  if( nFailAt>0 && --nFailAt==0 ){ oomHit(); return 0; }
  return defMem.xRealloc(p, n);
}

/* Install the wrapper (before SQLite is initialized). */
static void installOom(void){
  sqlite3_mem_methods m;
  sqlite3_config(SQLITE_CONFIG_GETMALLOC, &defMem);
  m = defMem;
  m.xMalloc = oomMalloc;
  m.xRealloc = oomRealloc;
  sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
}

#endif
