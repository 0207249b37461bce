/* Multi-partition ADI solver with the communication shape of NPB BT and SP (class A, 64^3
 * grid): P = q*q ranks, each owning q cells; every time step exchanges cell faces with the six
 * multi-partition neighbours (copy_faces: Irecv/Isend/Waitall), then for x, y and z a
 * pipelined forward-elimination sweep (receive from the predecessor, compute the cell,
 * Isend to the successor, q stages) and a back-substitution sweep the other way. Each message
 * is one MPI_Isend of at most 32 KB - 32 B, so it fits the study's fixed 32 KB buffer.
 * Message sizes and the work per cell follow BT's and SP's cell sizes and operation counts
 * (NPB 3.x: BT class A 168.3 Gflop in 200 steps, SP class A 85.0 Gflop in 400 steps).
 * Usage: adi bt|sp [steps=4] [ns_per_flop=0.5] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GRID 64
#define MAX_MSG (32768 - 32)

static volatile double sink;
/* About `flops` floating-point operations of dependent multiply-adds (2 per iteration). */
static void work(double flops) {
    double x = 1.0;
    for (long i = 0, n = (long)(flops / 2); i < n; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static int cap(long b) { return b > MAX_MSG ? MAX_MSG : (int)b; }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sp = argc > 1 && strcmp(argv[1], "sp") == 0;
    int steps = argc > 2 ? atoi(argv[2]) : 4;
    double scale = argc > 3 ? atof(argv[3]) : 1.0; /* multiplies the work per cell */
    int q = (int)(sqrt((double)size) + 0.5);
    if (q * q != size) {
        if (rank == 0) fprintf(stderr, "adi: needs a square number of ranks, got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int cs = (GRID + q - 1) / q; /* cell edge */
    /* Per-point values in a sweep message: BT sends 5x5 blocks + 5 rhs forward, 5 back;
     * SP sends 22 forward (two rows of its pentadiagonal system), 10 back. */
    int fwd = cap((long)cs * cs * (sp ? 22 : 30) * 8), back = cap((long)cs * cs * (sp ? 10 : 5) * 8);
    int face = cap((long)q * cs * cs * 5 * 2 * 8);
    double step_flops = (sp ? 85.0e9 / 400 : 168.3e9 / 200) / size * scale;
    double rhs = 0.3 * step_flops, fcell = 0.2 * step_flops / q, bcell = 0.033 * step_flops / q;
    /* Multi-partition neighbours (NPB make_set): i, j = position in the q x q grid. */
    int i = rank % q, j = rank / q;
    int pred[3] = {(i - 1 + q) % q + q * j, i + q * ((j - 1 + q) % q), (i + 1) % q + q * ((j - 1 + q) % q)};
    int succ[3] = {(i + 1) % q + q * j, i + q * ((j + 1) % q), (i - 1 + q) % q + q * ((j + 1) % q)};
    char *buf = calloc(14, MAX_MSG);
    for (int s = 0; s < steps; s++) {
        MPI_Request r[12];
        int k = 0;
        for (int d = 0; d < 3; d++) {
            MPI_Irecv(buf + k * MAX_MSG, face, MPI_BYTE, pred[d], 10 + 2 * d, MPI_COMM_WORLD, &r[k]), k++;
            MPI_Irecv(buf + k * MAX_MSG, face, MPI_BYTE, succ[d], 11 + 2 * d, MPI_COMM_WORLD, &r[k]), k++;
        }
        for (int d = 0; d < 3; d++) {
            MPI_Isend(buf + 12 * MAX_MSG, face, MPI_BYTE, succ[d], 10 + 2 * d, MPI_COMM_WORLD, &r[k]), k++;
            MPI_Isend(buf + 12 * MAX_MSG, face, MPI_BYTE, pred[d], 11 + 2 * d, MPI_COMM_WORLD, &r[k]), k++;
        }
        MPI_Waitall(12, r, MPI_STATUSES_IGNORE);
        work(rhs);
        for (int d = 0; d < 3; d++) {
            MPI_Request sr = MPI_REQUEST_NULL, rr;
            for (int st = 0; st < q; st++) { /* forward elimination */
                if (st > 0) {
                    MPI_Irecv(buf, fwd, MPI_BYTE, pred[d], 100 + d, MPI_COMM_WORLD, &rr);
                    MPI_Wait(&rr, MPI_STATUS_IGNORE);
                }
                work(fcell);
                if (st < q - 1) {
                    MPI_Wait(&sr, MPI_STATUS_IGNORE);
                    MPI_Isend(buf + MAX_MSG, fwd, MPI_BYTE, succ[d], 100 + d, MPI_COMM_WORLD, &sr);
                }
            }
            MPI_Wait(&sr, MPI_STATUS_IGNORE);
            for (int st = q - 1; st >= 0; st--) { /* back substitution */
                if (st < q - 1) {
                    MPI_Irecv(buf, back, MPI_BYTE, succ[d], 200 + d, MPI_COMM_WORLD, &rr);
                    MPI_Wait(&rr, MPI_STATUS_IGNORE);
                }
                work(bcell);
                if (st > 0) {
                    MPI_Wait(&sr, MPI_STATUS_IGNORE);
                    MPI_Isend(buf + MAX_MSG, back, MPI_BYTE, pred[d], 200 + d, MPI_COMM_WORLD, &sr);
                }
            }
            MPI_Wait(&sr, MPI_STATUS_IGNORE);
        }
    }
    if (rank == 0) printf("adi %s: %d ranks (q=%d), %d steps, messages %d/%d/%d B\n", sp ? "sp" : "bt", size, q, steps, face, fwd, back);
    free(buf);
    MPI_Finalize();
    return 0;
}
