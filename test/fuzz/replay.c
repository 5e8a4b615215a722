/*
** replay.c — runs a fuzz target over saved inputs, without libFuzzer, so
** that `make test` (plain and sanitized, with gcc) checks every target's
** properties on its seeds and on the inputs that once broke it
** (test/fuzz/seeds/TARGET/). Linked with one fuzz_*.c as build/MODE/replay_*.
**
**   build/MODE/replay_text DIR|FILE ...
**
** A broken property aborts (a failure to the runner); otherwise the last
** line is "N passed, 0 failed", one pass per input.
*/
#include "fuzz.h"
#include <dirent.h>
#include <sys/stat.h>

static int nPass = 0;

static void replayFile(const char *zPath){
  FILE *f = fopen(zPath, "rb");
  u8 *a = 0;
  long n;
  if( f==0 || fseek(f, 0, SEEK_END)!=0 || (n = ftell(f))<0 || fseek(f, 0, SEEK_SET)!=0 ){
    fprintf(stderr, "cannot read %s\n", zPath);
    exit(1);
  }
  a = malloc(n>0 ? (size_t)n : 1);     /* exactly n bytes: ASan sees past them */
  if( a==0 || fread(a, 1, (size_t)n, f)!=(size_t)n ){
    fprintf(stderr, "cannot read %s\n", zPath);
    exit(1);
  }
  fclose(f);
  LLVMFuzzerTestOneInput(a, (size_t)n);
  free(a);
  nPass++;
}

static void replayPath(const char *zPath){
  struct stat st;
  DIR *pDir;
  struct dirent *pEnt;
  if( stat(zPath, &st)!=0 ){
    fprintf(stderr, "no such input: %s\n", zPath);
    exit(1);
  }
  if( !S_ISDIR(st.st_mode) ){
    replayFile(zPath);
    return;
  }
  pDir = opendir(zPath);
  while( pDir && (pEnt = readdir(pDir))!=0 ){
    char *zChild;
    if( pEnt->d_name[0]=='.' ) continue;
    zChild = sqlite3_mprintf("%s/%s", zPath, pEnt->d_name);
    replayFile(zChild);
    sqlite3_free(zChild);
  }
  if( pDir ) closedir(pDir);
}

int main(int argc, char **argv){
  int i;
  for(i=1; i<argc; i++) replayPath(argv[i]);
  printf("%d passed, 0 failed\n", nPass);
  return 0;
}
