/* An MPI program that loads its MPI at run time, as Python's mpi4py does: built without MPI, it opens the
 * library named on its command line (RTLD_GLOBAL) and calls MPI_Init, MPI_Get_library_version and
 * MPI_Finalize through the symbols the process resolves, none of which takes a handle. Under a preloaded
 * libherald_pmpi.so built for the other MPI, the library's load-time check sees one MPI only; its MPI_Init
 * must find the second one. Prints the same lines as other_mpi_program.c. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s LIBMPI\n", argv[0]);
    return 2;
  }
  if (dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL) == NULL) {
    fprintf(stderr, "other_mpi: FAILED: %s\n", dlerror());
    return 1;
  }
  int (*init)(int*, char***) = (int (*)(int*, char***))dlsym(RTLD_DEFAULT, "MPI_Init");
  int (*library_version)(char*, int*) = (int (*)(char*, int*))dlsym(RTLD_DEFAULT, "MPI_Get_library_version");
  int (*finalize)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "MPI_Finalize");
  if (init == NULL || library_version == NULL || finalize == NULL) {
    fprintf(stderr, "other_mpi: FAILED: %s defines no MPI_Init, MPI_Get_library_version or MPI_Finalize\n", argv[1]);
    return 1;
  }
  static char text[1 << 16];
  int length = 0;
  if (init(&argc, &argv) != 0 || library_version(text, &length) != 0) return 1;
  text[strcspn(text, "\r\n")] = '\0';
  printf("other_mpi: runs %s\n", text);
  const int rc = finalize();
  if (rc == 0) printf("other_mpi: dlopen passed\n");
  return rc;
}
