/* 3-D halo exchange: a px x py x pz process grid (MPI_Dims_create), each step posts six
 * Irecv and six Isend of one face, waits for all, then computes; every `check` steps an
 * Allreduce of a residual. Usage: halo3d [steps=20] [face_bytes=4096] [work=20000] [check=5] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double work(long n, double x) {
    for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9;
    return x;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    int face = argc > 2 ? atoi(argv[2]) : 4096;
    long n = argc > 3 ? atol(argv[3]) : 20000;
    int check = argc > 4 ? atoi(argv[4]) : 5;
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, coords[3];
    MPI_Dims_create(size, 3, dims);
    /* Neighbours by hand (no Cart communicator, so every call stays on MPI_COMM_WORLD). */
    coords[0] = rank / (dims[1] * dims[2]);
    coords[1] = (rank / dims[2]) % dims[1];
    coords[2] = rank % dims[2];
    (void)periods;
    int nb[6];
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            int c[3] = {coords[0], coords[1], coords[2]};
            c[d] = (c[d] + (s ? 1 : dims[d] - 1)) % dims[d];
            nb[2 * d + s] = (c[0] * dims[1] + c[1]) * dims[2] + c[2];
        }
    char *sbuf = calloc(6, face), *rbuf = calloc(6, face);
    double x = rank, res = 0;
    for (int it = 0; it < steps; it++) {
        MPI_Request r[12];
        for (int i = 0; i < 6; i++) MPI_Irecv(rbuf + i * face, face, MPI_BYTE, nb[i], i ^ 1, MPI_COMM_WORLD, &r[i]);
        for (int i = 0; i < 6; i++) MPI_Isend(sbuf + i * face, face, MPI_BYTE, nb[i], i, MPI_COMM_WORLD, &r[6 + i]);
        MPI_Waitall(12, r, MPI_STATUSES_IGNORE);
        x = work(n, x);
        if (check > 0 && (it + 1) % check == 0) {
            double local = x, global;
            MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            res += global;
        }
    }
    if (rank == 0) printf("halo3d: %d ranks (%dx%dx%d), %d steps, %g\n", size, dims[0], dims[1], dims[2], steps, res);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
