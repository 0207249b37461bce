/* Pipelined wavefront sweep on a px x py process grid (as in KBA transport sweeps): for each
 * of four corner directions and `blocks` k-blocks, receive the inflow faces from the upstream
 * neighbours (blocking Recv), compute the block, send the outflow faces downstream. Then the
 * collectives a solver step uses: Bcast of parameters, Reduce of a tally, Barrier, Alltoall,
 * and (to exercise the tracer) Allgather, Gather, Scatter, Scan, Reduce_scatter_block,
 * Alltoallv and a Sendrecv_replace around a ring.
 * Usage: sweep [iters=3] [blocks=4] [face_bytes=2048] [work=20000] */
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
    int iters = argc > 1 ? atoi(argv[1]) : 3;
    int blocks = argc > 2 ? atoi(argv[2]) : 4;
    int face = argc > 3 ? atoi(argv[3]) : 2048;
    long n = argc > 4 ? atol(argv[4]) : 20000;
    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    int cx = rank / dims[1], cy = rank % dims[1];
    char *buf = calloc(2, face);
    double x = rank, params[4] = {1, 2, 3, 4}, tally, total;
    int *a2a_s = calloc(size, sizeof(int)), *a2a_r = calloc(size, sizeof(int));
    int *counts = calloc(size, sizeof(int)), *displs = calloc(size, sizeof(int));
    for (int it = 0; it < iters; it++) {
        MPI_Bcast(params, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (int dir = 0; dir < 4; dir++) {
            int sx = (dir & 1) ? -1 : 1, sy = (dir & 2) ? -1 : 1;
            int upx = cx - sx, upy = cy - sy, dnx = cx + sx, dny = cy + sy;
            int in_x = upx >= 0 && upx < dims[0], in_y = upy >= 0 && upy < dims[1];
            int out_x = dnx >= 0 && dnx < dims[0], out_y = dny >= 0 && dny < dims[1];
            for (int b = 0; b < blocks; b++) {
                int tag = dir * 1000 + b;
                if (in_x) MPI_Recv(buf, face, MPI_BYTE, upx * dims[1] + cy, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (in_y) MPI_Recv(buf + face, face, MPI_BYTE, cx * dims[1] + upy, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                x = work(n, x);
                if (out_x) MPI_Send(buf, face, MPI_BYTE, dnx * dims[1] + cy, tag, MPI_COMM_WORLD);
                if (out_y) MPI_Send(buf + face, face, MPI_BYTE, cx * dims[1] + dny, tag, MPI_COMM_WORLD);
            }
        }
        tally = x;
        MPI_Reduce(&tally, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Alltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Allgather(&rank, 1, MPI_INT, a2a_r, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Gather(&rank, 1, MPI_INT, a2a_r, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Scatter(a2a_s, 1, MPI_INT, &cx, 1, MPI_INT, size - 1, MPI_COMM_WORLD);
        MPI_Scan(&tally, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Reduce_scatter_block(a2a_s, a2a_r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < size; i++) counts[i] = 1, displs[i] = i;
        MPI_Alltoallv(a2a_s, counts, displs, MPI_INT, a2a_r, counts, displs, MPI_INT, MPI_COMM_WORLD);
        int token = rank;
        MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 9, (rank + size - 1) % size, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        cx = rank / dims[1];
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) printf("sweep: %d ranks (%dx%d), %d iterations\n", size, dims[0], dims[1], iters);
    free(buf);
    free(a2a_s);
    free(a2a_r);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
