/*
 * pmpi_trace: a PMPI interposition library that records every MPI call of a program in the
 * rdmasim trace format (docs/srq.md, parsed by crates/rdmasim-core/src/workload/mpi/trace.rs).
 *
 * Build:  mpicc -shared -fPIC -O2 -o libpmpi_trace.so pmpi_trace.c
 * Use:    RDMASIM_TRACE_DIR=out mpiexec -n 8 env LD_PRELOAD=./libpmpi_trace.so ./prog
 *         (or link it before the MPI library: mpicc prog.c -L. -lpmpi_trace)
 * `rdmasim trace -n N -- prog args` does both. Wrapped: point-to-point (blocking, nonblocking,
 * Sendrecv[_replace]), the Wait and Test families, and the collectives Barrier, Bcast, Reduce, Allreduce,
 * Alltoall[v], Allgather[v], Gather[v], Scatter[v], Scan, Reduce_scatter[_block] (v-variants are
 * recorded with their average block).
 *
 * One file per rank, out/rank.<r>.trace: a header line, then one line per call
 *   <call> start=<ns> end=<ns> cpu=<ns> [peer= bytes= tag= req= reqs= done= flag= root= src= rbytes= rtag= comm=]
 * start/end: CLOCK_MONOTONIC of the call, ns since this rank called MPI_Init; cpu: CLOCK_PROCESS_CPUTIME_ID spent between the end of
 * the previous call and the start of this one (the compute gap; wall time is distorted when
 * ranks outnumber cores). Ranks are MPI_COMM_WORLD ranks; -1 = MPI_ANY_SOURCE / MPI_ANY_TAG,
 * -2 = MPI_PROC_NULL. Requests get ids 1, 2, ... in the order they are started.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static FILE *out;
static int world_rank = -1, world_size = 0;
static long long last_cpu;     /* process CPU time at the end of the previous call */
static long long t_base;       /* CLOCK_MONOTONIC when MPI_Init was called: times are relative */
static long long next_req_id = 1;
static char *iobuf;

/* Active requests: handle -> id, a small open table (programs keep few requests in flight). */
typedef struct { MPI_Request h; long long id; } req_slot;
static req_slot *slots;
static int nslots, capslots;

static long long now_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long req_add(MPI_Request h) {
    if (h == MPI_REQUEST_NULL) return -1;
    if (nslots == capslots) {
        capslots = capslots ? 2 * capslots : 64;
        slots = realloc(slots, capslots * sizeof *slots);
        if (!slots) { fprintf(stderr, "pmpi_trace: out of memory\n"); abort(); }
    }
    slots[nslots].h = h;
    slots[nslots].id = next_req_id;
    nslots++;
    return next_req_id++;
}

static long long req_find(MPI_Request h) {
    if (h == MPI_REQUEST_NULL) return -1;
    for (int i = nslots - 1; i >= 0; i--)
        if (slots[i].h == h) return slots[i].id;
    return -1;
}

static void req_drop(long long id) {
    for (int i = nslots - 1; i >= 0; i--)
        if (slots[i].id == id) { slots[i] = slots[--nslots]; return; }
}

/* A communicator rank as an MPI_COMM_WORLD rank; wildcards and PROC_NULL as the format says. */
static int world_of(MPI_Comm comm, int r) {
    if (r == MPI_ANY_SOURCE) return -1;
    if (r == MPI_PROC_NULL) return -2;
    if (comm == MPI_COMM_WORLD || r < 0) return r;
    MPI_Group g, wg;
    int w = r;
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    PMPI_Group_translate_ranks(g, 1, &r, wg, &w);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    return w;
}

static int tag_of(int t) { return t == MPI_ANY_TAG ? -1 : t; }

static long long bytes_of(int count, MPI_Datatype t) {
    int s = 0;
    if (t != MPI_DATATYPE_NULL) PMPI_Type_size(t, &s);
    return (long long)count * s;
}

static const char *comm_name(MPI_Comm c) { return c == MPI_COMM_WORLD ? "world" : "other"; }

/* Starts a record: the call name and its times; the caller appends fields and ends the line. */
#define BEGIN long long t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID)
#define HEAD(name)                                                                             \
    long long t1 = now_ns(CLOCK_MONOTONIC);                                                    \
    if (out) fprintf(out, "%s start=%lld end=%lld cpu=%lld", name, t0 - t_base, t1 - t_base, c0 - last_cpu)
#define END                                                                                    \
    do {                                                                                       \
        if (out) fputc('\n', out);                                                             \
        last_cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID);                                           \
    } while (0)

static void open_trace(void) {
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const char *dir = getenv("RDMASIM_TRACE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/rank.%d.trace", dir && *dir ? dir : ".", world_rank);
    out = fopen(path, "w");
    if (!out) { perror(path); return; }
    iobuf = malloc(1 << 20);
    if (iobuf) setvbuf(out, iobuf, _IOFBF, 1 << 20);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "unknown";
    int len = 0;
    PMPI_Get_library_version(lib, &len);
    for (char *p = lib; *p; p++)
        if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '=') *p = '_';
    lib[40] = 0;
    fprintf(out, "#rdmasim-mpi-trace v1 rank=%d size=%d lib=%s\n", world_rank, world_size, lib);
}

int MPI_Init(int *argc, char ***argv) {
    BEGIN;
    t_base = t0;
    int rc = PMPI_Init(argc, argv);
    open_trace();
    last_cpu = c0;
    HEAD("init");
    END;
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    BEGIN;
    t_base = t0;
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    open_trace();
    last_cpu = c0;
    HEAD("init");
    END;
    return rc;
}

int MPI_Finalize(void) {
    BEGIN;
    HEAD("finalize");
    END;
    if (out) { fclose(out); out = NULL; }
    free(iobuf);
    return PMPI_Finalize();
}

#define P2P_SEND(NAME, PNAME, LABEL)                                                           \
    int NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {  \
        BEGIN;                                                                                 \
        int rc = PNAME(buf, count, dt, dest, tag, comm);                                       \
        HEAD(LABEL);                                                                           \
        if (out) fprintf(out, " peer=%d bytes=%lld tag=%d", world_of(comm, dest), bytes_of(count, dt), tag); \
        END;                                                                                   \
        return rc;                                                                             \
    }
P2P_SEND(MPI_Send, PMPI_Send, "send")
P2P_SEND(MPI_Ssend, PMPI_Ssend, "ssend")
P2P_SEND(MPI_Rsend, PMPI_Rsend, "rsend")
P2P_SEND(MPI_Bsend, PMPI_Bsend, "bsend")

#define P2P_ISEND(NAME, PNAME, LABEL)                                                          \
    int NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,    \
             MPI_Request *req) {                                                               \
        BEGIN;                                                                                 \
        int rc = PNAME(buf, count, dt, dest, tag, comm, req);                                  \
        HEAD(LABEL);                                                                           \
        long long id = req_add(*req);                                                          \
        if (out) fprintf(out, " peer=%d bytes=%lld tag=%d req=%lld", world_of(comm, dest), bytes_of(count, dt), tag, id); \
        END;                                                                                   \
        return rc;                                                                             \
    }
P2P_ISEND(MPI_Isend, PMPI_Isend, "isend")
P2P_ISEND(MPI_Issend, PMPI_Issend, "issend")
P2P_ISEND(MPI_Irsend, PMPI_Irsend, "irsend")
P2P_ISEND(MPI_Ibsend, PMPI_Ibsend, "ibsend")

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Status *st) {
    BEGIN;
    int rc = PMPI_Recv(buf, count, dt, src, tag, comm, st);
    HEAD("recv");
    if (out) fprintf(out, " peer=%d bytes=%lld tag=%d", world_of(comm, src), bytes_of(count, dt), tag_of(tag));
    END;
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Request *req) {
    BEGIN;
    int rc = PMPI_Irecv(buf, count, dt, src, tag, comm, req);
    HEAD("irecv");
    long long id = req_add(*req);
    if (out) fprintf(out, " peer=%d bytes=%lld tag=%d req=%lld", world_of(comm, src), bytes_of(count, dt), tag_of(tag), id);
    END;
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rdt, int src, int rtag, MPI_Comm comm, MPI_Status *st) {
    BEGIN;
    int rc = PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, comm, st);
    HEAD("sendrecv");
    if (out)
        fprintf(out, " peer=%d bytes=%lld tag=%d src=%d rbytes=%lld rtag=%d", world_of(comm, dest), bytes_of(scount, sdt),
                stag, world_of(comm, src), bytes_of(rcount, rdt), tag_of(rtag));
    END;
    return rc;
}

int MPI_Wait(MPI_Request *req, MPI_Status *st) {
    BEGIN;
    long long id = req_find(*req);
    int rc = PMPI_Wait(req, st);
    HEAD("wait");
    if (out) fprintf(out, " req=%lld", id);
    req_drop(id);
    END;
    return rc;
}

/* Writes " key=a,b,c" for the ids of the given request indices (all when idx is NULL). */
static void write_ids(const char *key, const long long *ids, int n, const int *idx) {
    if (!out) return;
    fprintf(out, " %s=", key);
    int first = 1;
    for (int i = 0; i < n; i++) {
        long long id = ids[idx ? idx[i] : i];
        if (id < 0) continue;
        fprintf(out, first ? "%lld" : ",%lld", id);
        first = 0;
    }
}

static long long *ids_of(int n, MPI_Request *reqs) {
    long long *ids = malloc((n > 0 ? n : 1) * sizeof *ids);
    if (!ids) abort();
    for (int i = 0; i < n; i++) ids[i] = req_find(reqs[i]);
    return ids;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[]) {
    BEGIN;
    long long *ids = ids_of(n, reqs);
    int rc = PMPI_Waitall(n, reqs, sts);
    HEAD("waitall");
    write_ids("reqs", ids, n, NULL);
    for (int i = 0; i < n; i++) req_drop(ids[i]);
    free(ids);
    END;
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *st) {
    BEGIN;
    long long *ids = ids_of(n, reqs);
    int rc = PMPI_Waitany(n, reqs, index, st);
    HEAD("waitany");
    int done = *index == MPI_UNDEFINED ? 0 : 1;
    write_ids("done", ids, done, index);
    if (done) req_drop(ids[*index]);
    free(ids);
    END;
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[]) {
    BEGIN;
    long long *ids = ids_of(n, reqs);
    int rc = PMPI_Waitsome(n, reqs, outcount, idx, sts);
    HEAD("waitsome");
    int k = *outcount == MPI_UNDEFINED ? 0 : *outcount;
    write_ids("done", ids, k, idx);
    for (int i = 0; i < k; i++) req_drop(ids[idx[i]]);
    free(ids);
    END;
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st) {
    BEGIN;
    long long id = req_find(*req);
    int rc = PMPI_Test(req, flag, st);
    HEAD("test");
    if (out) fprintf(out, " req=%lld flag=%d", id, *flag ? 1 : 0);
    if (*flag) req_drop(id);
    END;
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[]) {
    BEGIN;
    long long *ids = ids_of(n, reqs);
    int rc = PMPI_Testall(n, reqs, flag, sts);
    HEAD("testall");
    write_ids("reqs", ids, n, NULL);
    if (out) fprintf(out, " flag=%d", *flag ? 1 : 0);
    if (*flag)
        for (int i = 0; i < n; i++) req_drop(ids[i]);
    free(ids);
    END;
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *st) {
    BEGIN;
    long long *ids = ids_of(n, reqs);
    int rc = PMPI_Testany(n, reqs, index, flag, st);
    HEAD("testany");
    int done = (*flag && *index != MPI_UNDEFINED) ? 1 : 0;
    write_ids("done", ids, done, index);
    if (out) fprintf(out, " flag=%d", done);
    if (done) req_drop(ids[*index]);
    free(ids);
    END;
    return rc;
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[]) {
    BEGIN;
    long long *ids = ids_of(n, reqs);
    int rc = PMPI_Testsome(n, reqs, outcount, idx, sts);
    HEAD("testsome");
    int k = *outcount == MPI_UNDEFINED ? 0 : *outcount;
    write_ids("done", ids, k, idx);
    if (out) fprintf(out, " flag=%d", k > 0);
    for (int i = 0; i < k; i++) req_drop(ids[idx[i]]);
    free(ids);
    END;
    return rc;
}

int MPI_Barrier(MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Barrier(comm);
    HEAD("barrier");
    if (out) fprintf(out, " comm=%s", comm_name(comm));
    END;
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Bcast(buf, count, dt, root, comm);
    HEAD("bcast");
    if (out) fprintf(out, " root=%d bytes=%lld comm=%s", world_of(comm, root), bytes_of(count, dt), comm_name(comm));
    END;
    return rc;
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
    HEAD("reduce");
    if (out) fprintf(out, " root=%d bytes=%lld comm=%s", world_of(comm, root), bytes_of(count, dt), comm_name(comm));
    END;
    return rc;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    HEAD("allreduce");
    if (out) fprintf(out, " bytes=%lld comm=%s", bytes_of(count, dt), comm_name(comm));
    END;
    return rc;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    HEAD("alltoall");
    if (out) fprintf(out, " bytes=%lld comm=%s", bytes_of(scount, sdt), comm_name(comm));
    END;
    return rc;
}

/* ---- more collectives: recorded with their bytes per rank (v-variants: the average block) ---- */

static long long sum_counts(const int *counts, MPI_Datatype dt, MPI_Comm comm) {
    int n = 0;
    PMPI_Comm_size(comm, &n);
    long long s = 0;
    for (int i = 0; i < n; i++) s += counts[i];
    return bytes_of((int)(n ? s / n : 0), dt);
}

static int comm_rank(MPI_Comm comm) {
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    return r;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    HEAD("allgather");
    if (out) fprintf(out, " bytes=%lld comm=%s", bytes_of(rcount, rdt), comm_name(comm));
    END;
    return rc;
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int rcounts[], const int displs[],
                   MPI_Datatype rdt, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
    HEAD("allgather");
    if (out) fprintf(out, " bytes=%lld comm=%s", sum_counts(rcounts, rdt, comm), comm_name(comm));
    END;
    return rc;
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    HEAD("gather");
    long long b = comm_rank(comm) == root ? bytes_of(rcount, rdt) : bytes_of(scount, sdt);
    if (out) fprintf(out, " root=%d bytes=%lld comm=%s", world_of(comm, root), b, comm_name(comm));
    END;
    return rc;
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int rcounts[], const int displs[],
                MPI_Datatype rdt, int root, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm);
    HEAD("gather");
    if (out) fprintf(out, " root=%d bytes=%lld comm=%s", world_of(comm, root), bytes_of(scount, sdt), comm_name(comm));
    END;
    return rc;
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    HEAD("scatter");
    long long b = comm_rank(comm) == root ? bytes_of(scount, sdt) : bytes_of(rcount, rdt);
    if (out) fprintf(out, " root=%d bytes=%lld comm=%s", world_of(comm, root), b, comm_name(comm));
    END;
    return rc;
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm);
    HEAD("scatter");
    if (out) fprintf(out, " root=%d bytes=%lld comm=%s", world_of(comm, root), bytes_of(rcount, rdt), comm_name(comm));
    END;
    return rc;
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Scan(sbuf, rbuf, count, dt, op, comm);
    HEAD("scan");
    if (out) fprintf(out, " bytes=%lld comm=%s", bytes_of(count, dt), comm_name(comm));
    END;
    return rc;
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm);
    HEAD("reduce_scatter");
    if (out) fprintf(out, " bytes=%lld comm=%s", bytes_of(rcount, dt), comm_name(comm));
    END;
    return rc;
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm);
    HEAD("reduce_scatter");
    if (out) fprintf(out, " bytes=%lld comm=%s", sum_counts(rcounts, dt, comm), comm_name(comm));
    END;
    return rc;
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt, void *rbuf,
                  const int rcounts[], const int rdispls[], MPI_Datatype rdt, MPI_Comm comm) {
    BEGIN;
    int rc = PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
    HEAD("alltoall");
    if (out) fprintf(out, " bytes=%lld comm=%s", sum_counts(scounts, sdt, comm), comm_name(comm));
    END;
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int src, int rtag, MPI_Comm comm,
                         MPI_Status *st) {
    BEGIN;
    int rc = PMPI_Sendrecv_replace(buf, count, dt, dest, stag, src, rtag, comm, st);
    HEAD("sendrecv");
    long long b = bytes_of(count, dt);
    if (out)
        fprintf(out, " peer=%d bytes=%lld tag=%d src=%d rbytes=%lld rtag=%d", world_of(comm, dest), b, stag,
                world_of(comm, src), b, tag_of(rtag));
    END;
    return rc;
}
