"""Random scenario generator for fuzzing rdmasim (`make fuzz`).

usage: gen.py OUT_DIR [SEED [COUNT [KINDS]]]
  OUT_DIR  directory for the scenario files (created); MPI traces go to OUT_DIR/traces
  SEED     random seed (default 1); COUNT scenarios (default 500)
  KINDS    comma-separated workload kinds, in turn: perftest,srq,odp,mpi,flows (default all)

Each scenario mixes a workload with random hardware overrides, topology, QP attributes, link
faults and capture settings, including edge values (tiny and huge sizes, zero timeouts, heavy
loss), and always a [limits] table so no run goes on for ever. Scenario errors are expected for
some combinations; what the fuzz run looks for is panics, silent stalls and impossible values.
"""
import os
import random
import sys
R = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
OUT = sys.argv[1]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 500
KINDS = sys.argv[4].split(',') if len(sys.argv) > 4 else ['perftest', 'srq', 'odp', 'mpi', 'flows']
os.makedirs(OUT, exist_ok=True)
TRACES = os.path.join(OUT, 'traces')
os.makedirs(TRACES, exist_ok=True)

def ch(*a): return R.choice(a)
def maybe(p=0.3): return R.random() < p
def fnum(x):
    s = repr(float(x))
    return s

PROFILES = ['cx3-fdr', 'cx4-edr', 'cx5-edr', 'cx6-hdr']
TIME_KEYS_NS = ['post_send_cpu_ns','doorbell_ns','wqe_fetch_ns','dma_read_ns','dma_write_ns','tx_pipeline_ns','rx_pipeline_ns',
 'tx_packet_ns','recv_wqe_fetch_ns','poll_cq_ns','interrupt_ns','wakeup_ns','event_cpu_ns','switch_latency_ns',
 'srq_event_interrupt_ns','srq_arm_ns','srq_recv_wqe_ns','srq_poll_detect_ns']
TIME_KEYS_US = ['adaptive_retrans_base_us','odp_fault_us','odp_requester_retry_us','odp_invalidate_us','mr_register_us','mr_pin_page_us']

def time_val(unit):
    return ch(0.0, 0.0, 1e-9, 0.001, 0.5, 1.0, 3.0, 10.0, 100.0, 1000.0, 5000.0, 1e5, R.uniform(0, 1000))

def overrides():
    o = {}
    if maybe(0.15): o['link_gen'] = '"%s"' % ch('sdr','ddr','qdr','fdr10','fdr','edr','hdr')
    if maybe(0.1): o['link_width'] = ch(1,4,12)
    mtu = None
    if maybe(0.15):
        mtu = ch(256,512,1024,2048,4096); o['mtu'] = mtu
    if maybe(0.1): o['cable_ns_per_m'] = fnum(ch(0.0, 5.0, 100.0, 1e4))
    if maybe(0.15): o['vl_buffer_bytes'] = ch(384, 640, 1152, 2176, 4224, 4288, 8192, 32768, 1<<20)
    for k in TIME_KEYS_NS:
        if maybe(0.04): o[k] = fnum(time_val('ns'))
    for k in TIME_KEYS_US:
        if maybe(0.06): o[k] = fnum(time_val('us'))
    if maybe(0.1): o['rx_dma_drain'] = ch('true','false')
    if maybe(0.05): o['pcie_gen'] = ch(3,4,5)
    if maybe(0.05): o['pcie_lanes'] = ch(1,2,4,8,16,32)
    if maybe(0.05): o['pcie_mps'] = ch(128,256,512,1024,2048,4096)
    if maybe(0.15): o['ack_req_every'] = ch(1,2,3,64,1000,1<<30)
    if maybe(0.15): o['max_inflight_packets'] = ch(1,2,3,16,128,4096,8388608)
    if maybe(0.3): o['retransmit_floor_ms'] = fnum(ch(0.0,0.0,0.001,1.0,500.0))
    if maybe(0.1): o['arbitration'] = '"%s"' % ch('packet-round-robin','message-round-robin','chunk-round-robin','quantum-round-robin')
    if maybe(0.1): o['arbitration_chunk_bytes'] = ch(1,2,100,4096,16384,1<<30)
    if maybe(0.15): o['tx_staging_bytes'] = ch(0,1,64,2048,16384,65536,1<<20,1<<24,(1<<24)+1)
    if maybe(0.1): o['cpu_idle'] = '"%s"' % ch('none','haswell','haswell-pkg','sandybridge')
    if maybe(0.05): o['wqe_fetch_on_schedule'] = ch('true','false')
    if maybe(0.08):
        hz = ch(1.0, 100.0, 250.0, 1000.0, 10000.0, 100000.0)
        o['os_tick_hz'] = fnum(hz)
        if maybe(0.5):
            a = R.uniform(0, 3000); b = a + R.uniform(0, 3000)
            o['os_tick_detour_min_ns'] = fnum(a); o['os_tick_detour_max_ns'] = fnum(b)
        if maybe(0.3): o['os_tick_entry_exit_ns'] = fnum(R.uniform(0, 1000))
    if maybe(0.08): o['odp_fault_workers'] = ch(0,1,2,32,1000)
    if maybe(0.08): o['odp_damming'] = ch('true','false')
    if maybe(0.08): o['odp_flood'] = ch('true','false')
    return o, mtu

GENERATED = [
    ('generator = { kind = "fat-tree-k", k = 4 }\n', 16),
    ('generator = { kind = "k-ary-n-tree", k = 2, n = 2, speed = { gen = "edr", width = 4 } }\n', 4),
    ('generator = { kind = "rails", rails = 2, of = { kind = "fat-tree-k", k = 4 } }\n', 16),
    ('generator = { kind = "xgft", m = [4, 4], w = [1, 2], speed = { gen = "fdr", width = 1 } }\n', 16),
    ('generator = { kind = "hyperx", dims = [2, 2, 2] }\n', 8),
]

ENGINES = ['minhop', 'updn', 'ftree', 'sssp', 'dfsssp', 'dor', 'dmodk', 'minhop-mod', 'lash']

def topo():
    if maybe(0.12):
        text, hosts = ch(*GENERATED)
        # OpenSM's engines by name (one per rail or one for all), now and then a bad one.
        if maybe(0.4):
            text += 'route = "%s"\n' % ','.join(ch(*ENGINES) for _ in range(ch(1, 1, 2)))
            if maybe(0.2): text += 'roots = ["%s"]\n' % ch('r0-L3-s0', 'r0-L2-s1', 'h0 mlx4_0', 'nosuch')
            if maybe(0.2): text += 'credit_loops = "%s"\n' % ch('warn', 'refuse', 'maybe')
        return ('generated', hosts, text)
    if maybe(0.5):
        return ('back-to-back', 2, 'kind = "back-to-back"\n' if maybe() else '')
    h = ch(2,2,3,4,8,16,33,128, R.randint(2,64))
    if maybe(0.02): h = 1024
    s = 'kind = "single-switch"\nhosts = %d\n' % h
    return ('single-switch', h, s)

def sel(kind, hosts):
    if kind == 'generated':
        return ch('*', '*', 'h0-nosuch')
    if kind == 'back-to-back':
        return ch('*','h0-h1','h0->h1','h1->h0')
    a = R.randrange(hosts)
    return ch('*', 'h%d-sw0' % a, 'h%d->sw0' % a, 'sw0->h%d' % a, 'sw0-h%d' % a)

def faults(kind, hosts):
    s = ''
    n = ch(0,0,0,1,1,2,3)
    for _ in range(n):
        s += '[[faults]]\nlink = "%s"\n' % sel(kind, hosts)
        if maybe(0.6): s += 'loss_rate = %s\n' % fnum(ch(0.0, 1e-5, 1e-3, 0.01, 0.05, 0.1, 0.3, 0.5, 0.9))
        if maybe(0.3): s += 'ber = %s\n' % fnum(ch(0.0, 1e-12, 1e-9, 1e-6, 1e-4, 1e-3))
        if maybe(0.4): s += 'drop_nth = [%s]\n' % ', '.join(str(x) for x in sorted(set(R.choice([1,2,3,4,5,10,64,65,100,128,129,1000]) for _ in range(R.randint(1,5)))))
    return s

def qp(hw_mtu):
    s = '[qp]\n'
    if maybe(0.5): s += 'timeout = %d\n' % ch(0,1,2,5,10,14,20,31)
    if maybe(0.5): s += 'retry_cnt = %d\n' % R.randint(0,7)
    if maybe(0.5): s += 'rnr_retry = %d\n' % R.randint(0,7)
    if maybe(0.5): s += 'min_rnr_timer = %d\n' % R.randint(0,31)
    if maybe(0.3): s += 'max_rd_atomic = %d\n' % ch(1,2,4,16)
    if maybe(0.2): s += 'mtu = %d\n' % ch(256,512,1024,2048,4096)
    if maybe(0.1): s += 'sl = %d\n' % ch(0,1,7,8,15,16)
    return s

def pick2(hosts):
    a = R.randrange(hosts); b = R.randrange(hosts)
    while b == a: b = R.randrange(hosts)
    return a, b

def perftest(kind, hosts):
    test = ch('ib_write_bw','ib_write_lat','ib_read_bw','ib_read_lat','ib_send_bw','ib_send_lat')
    lat = test.endswith('lat')
    s = 'kind = "perftest"\ntest = "%s"\n' % test
    if maybe(0.05): s += 'all_sizes = true\n'
    elif maybe(0.8): s += 'size = %d\n' % ch(1,2,3,63,64,65,255,256,257,1023,1024,4095,4096,4097,8192,65535,65536,1<<20,8<<20,1<<31, R.randint(1,200000))
    iters_max = 3 if maybe(0.1) else 3000
    if maybe(0.8): s += 'iters = %d\n' % ch(1,2,3,10,100, R.randint(1,iters_max))
    if maybe(0.3) and 'read' not in test: s += 'inline_size = %d\n' % ch(0,1,2,16,64,128,220,236,512,1024)
    if maybe(0.4): s += 'tx_depth = %d\n' % ch(1,2,3,16,128,1024,100000)
    if not lat and maybe(0.4): s += 'qps = %d\n' % ch(1,2,3,8,64,512,4096)
    if test != 'ib_write_lat' and maybe(0.3): s += 'events = true\n'
    if maybe(0.3): s += 'rx_depth = %d\n' % ch(0,1,2,3,16,128,512,100000)
    if not lat and maybe(0.3): s += 'cq_mod = %d\n' % ch(1,2,3,7,100,1024)
    if hosts > 2 or maybe(0.3):
        a, b = pick2(hosts); s += 'client = %d\nserver = %d\n' % (a, b)
    return s

def srq(kind, hosts):
    m = ch('stop-resume','srq-limit')
    s = 'kind = "srq-episode"\nmethod = "%s"\n' % m
    refill = ch(1,2,3,16,30,31,64,1000,1<<16)
    if maybe(0.8): s += 'refill = %d\n' % refill
    else: refill = 64
    if maybe(0.6):
        if m == 'srq-limit' and maybe(0.9):
            lim = R.randint(1, max(1, refill-1)) if refill > 1 else 1
        else:
            lim = ch(0,1,30,64,100000)
        s += 'srq_limit = %d\n' % lim
    if maybe(0.6): s += 'packet_bytes = %d\n' % ch(1,2,63,64,65,256,4096,4097,65536,1<<20,1<<31)
    if maybe(0.3): s += 'inline = %s\n' % ch('true','false')
    if maybe(0.6): s += 'burst = %d\n' % ch(1,2,3,refill,refill+1,2*refill+3,100,4096)
    if hosts > 2 or maybe(0.3):
        a, b = pick2(hosts); s += 'client = %d\nserver = %d\n' % (a, b)
    return s

def odp(kind, hosts):
    s = 'kind = "odp-reads"\n'
    size = ch(1,2,100,4095,4096,4097,8192,65536,1<<20, R.randint(1,100000))
    reads = ch(1,2,3,4,8,64,128,1000, R.randint(1,300))
    while reads*size > (1<<30) - 4096: reads = max(1, reads//2)
    s += 'reads = %d\nsize = %d\n' % (reads, size)
    if maybe(0.6): s += 'interval_us = %s\n' % fnum(ch(0.0, 0.001, 1.0, 10.0, 100.0, 500.0, 3000.0, 1e4, 1e6))
    if maybe(0.5): s += 'qps = %d\n' % ch(1,2,3,4,16,256,1024,4096)
    if maybe(0.5): s += 'client_odp = %s\n' % ch('true','false')
    if maybe(0.5): s += 'server_odp = %s\n' % ch('true','false')
    if maybe(0.5): s += 'odp = "%s"\n' % ch('explicit','implicit')
    if maybe(0.4): s += 'prefetch = %s\n' % ch('true','false')
    if maybe(0.4): s += 'offset = %d\n' % ch(0,1,64,2048,4095)
    if hosts > 2 or maybe(0.3):
        a, b = pick2(hosts); s += 'client = %d\nserver = %d\n' % (a, b)
    return s

def flows(kind, hosts):
    """Competing flows (docs/isolation.md): verbs, sizes, depths, polling, start times, the
    sender-side splitter and pacer, and sometimes a HERD-like key-value store."""
    s = 'kind = "flows"\n'
    foreground = False
    for i in range(R.randint(1, 4)):
        verb = ch('write', 'read', 'write_imm', 'send')
        size = ch(1, 10, 64, 1000, 4096, 65536, 1 << 20, R.randint(1, 200000))
        depth = ch(1, 1, 2, 16, 600)
        s += '[[workload.flow]]\nverb = "%s"\nsize = %d\n' % (verb, size)
        if i > 0 and maybe(0.4):
            s += 'background = true\n'
        else:
            foreground = True
            s += ch('count = %d\n' % ch(1, 10, 200, 3000), 'total_bytes = %d\n' % (size * ch(1, 3, 50)))
        s += 'depth = %d\npolling = "%s"\n' % (depth, ch('busy', 'event'))
        if maybe(0.2) and verb != 'read' and size <= 1024: s += 'inline = true\n'
        if maybe(0.3): s += 'qps = %d\n' % ch(1, 2, 5)
        if maybe(0.2): s += 'start_us = %s\n' % fnum(ch(0.0, 10.0, 200.0))
        if depth == 1 and size > 1 and maybe(0.2):
            s += 'split_bytes = %d\n' % R.randint(1, size)
            if maybe(0.5): s += 'split_window = %d\n' % ch(1, 4, 32, 100)
            if maybe(0.3): s += 'pace_gbps = %s\n' % fnum(ch(0.5, 10.0, 48.0))
        if hosts > 2 or maybe(0.3):
            a, b = pick2(hosts); s += 'client = %d\nserver = %d\n' % (a, b)
    if not foreground or maybe(0.3):
        a, b = pick2(hosts)
        s += '[workload.kv]\nrequests = %d\nclient = %d\nserver = %d\n' % (ch(10, 500, 3000), a, b)
        if maybe(0.5): s += 'window = %d\n' % ch(1, 4, 64)
        if maybe(0.4): s += 'server_pipeline = %s\n' % ch('true', 'false')
        if maybe(0.4): s += 'value_bytes = %d\n' % ch(1, 32, 1000, 100000)
        if maybe(0.3): s += 'get_fraction = %s\n' % fnum(ch(0.0, 0.5, 1.0))
    return s

# ---------- MPI traces
trace_count = [0]
def rec(call, cpu, rest=''):
    return '%s start=0 end=0 cpu=%d %s' % (call, cpu, rest)

def mk_trace(n):
    progs = [[] for _ in range(n)]
    reqs = [0]*n
    out = [[] for _ in range(n)]
    def newreq(r):
        reqs[r] += 1; return reqs[r]
    def cpu(): return ch(0,0,10,1000,100000, R.randint(0,50000))
    def size(): return ch(0,1,8,128,129,1024,12288,12289,32736,32737,65536,1<<20, R.randint(0,40000))
    steps = R.randint(1, 8)
    tagc = [0]
    bad = maybe(0.1)
    for st in range(steps):
        op = ch('coll','coll','pairs','ring','block','any','test')
        if op == 'coll':
            c = ch('barrier','bcast','reduce','allreduce','alltoall','allgather','gather','scatter','scan','reduce_scatter')
            root = R.randrange(n); b = size()
            for r in range(n):
                if c == 'barrier': out[r].append(rec(c, cpu(), 'comm=world'))
                elif c in ('bcast','reduce','gather','scatter'): out[r].append(rec(c, cpu(), 'root=%d bytes=%d comm=world' % (root if not (bad and maybe(0.2)) else R.randrange(n), b)))
                else: out[r].append(rec(c, cpu(), 'bytes=%d comm=world' % b))
        elif op in ('pairs','any'):
            pend = [[] for _ in range(n)]
            for _ in range(R.randint(1, 2*n)):
                a, b = pick2(n); tagc[0] += 1; t = tagc[0] % 1000; sz = size()
                ra = newreq(a); rb = newreq(b)
                out[a].append(rec(ch('isend','issend','ibsend'), cpu(), 'peer=%d bytes=%d tag=%d req=%d' % (b, sz, t, ra)))
                src = -1 if op == 'any' and maybe(0.5) else a
                tg = -1 if op == 'any' and maybe(0.5) else t
                out[b].append(rec('irecv', cpu(), 'peer=%d bytes=%d tag=%d req=%d' % (src, max(sz, size()) if maybe(0.3) else sz, tg, rb)))
                pend[a].append(ra); pend[b].append(rb)
            for r in range(n):
                if pend[r]:
                    if maybe(0.2):
                        for q in pend[r]: out[r].append(rec('wait', cpu(), 'req=%d' % q))
                    else:
                        out[r].append(rec('waitall', cpu(), 'reqs=' + ','.join(map(str, pend[r]))))
        elif op == 'ring':
            tagc[0] += 1; t = tagc[0] % 1000; sz = size()
            for r in range(n):
                out[r].append(rec('sendrecv', cpu(), 'peer=%d bytes=%d tag=%d src=%d rbytes=%d rtag=%d' % ((r+1)%n, sz, t, (r-1)%n, sz, t)))
        elif op == 'block':
            a, b = pick2(n); tagc[0] += 1; t = tagc[0] % 1000; sz = size()
            out[a].append(rec(ch('send','ssend','rsend','bsend'), cpu(), 'peer=%d bytes=%d tag=%d' % (b, sz, t)))
            out[b].append(rec('recv', cpu(), 'peer=%d bytes=%d tag=%d' % (a, sz, t)))
        elif op == 'test':
            a, b = pick2(n); tagc[0] += 1; t = tagc[0] % 1000; sz = size()
            ra = newreq(a); rb = newreq(b)
            out[a].append(rec('isend', cpu(), 'peer=%d bytes=%d tag=%d req=%d' % (b, sz, t, ra)))
            out[b].append(rec('irecv', cpu(), 'peer=%d bytes=%d tag=%d req=%d' % (a, sz, t, rb)))
            out[a].append(rec('test', cpu(), 'req=%d flag=0' % ra))
            out[a].append(rec('wait', cpu(), 'req=%d' % ra))
            out[b].append(rec('waitany', cpu(), 'done=%d' % rb) if maybe(0.3) else rec('wait', cpu(), 'req=%d' % rb))
    if bad:
        a, b = pick2(n)
        if maybe(0.5): out[a].append(rec('recv', cpu(), 'peer=%d bytes=8 tag=999 ' % b))
        else: out[a].append(rec('send', cpu(), 'peer=%d bytes=%d tag=999' % (b, size())))
    d = os.path.join(TRACES, 't%05d_%d' % (trace_count[0], R.randrange(1<<30))); trace_count[0] += 1
    os.makedirs(d, exist_ok=True)
    for r in range(n):
        txt = '#rdmasim-mpi-trace v1 rank=%d size=%d lib=fuzz\ninit start=0 end=0 cpu=0\n' % (r, n)
        txt += '\n'.join(out[r]) + ('\n' if out[r] else '') + 'finalize start=0 end=0 cpu=%d\n' % cpu()
        open(os.path.join(d, 'rank.%d.trace' % r), 'w').write(txt)
    return d

def mpi(kind, hosts):
    # needs single switch mostly
    ranks = ch(2,2,3,4,5,8,9,16)
    d = mk_trace(ranks)
    s = 'kind = "mpi"\ntrace = "%s"\n' % d
    rph = 1
    if maybe(0.4): rph = ch(1,2,3,ranks); s += 'ranks_per_host = %d\n' % rph
    s += 'flow_control = "%s"\n' % ch('srq-limit','stop-resume')
    bufs = None
    if maybe(0.7): bufs = ch(1,2,3,4,8,16,256,1024); s += 'srq_buffers = %d\n' % bufs
    if maybe(0.3) and (bufs or 256) > 1: s += 'srq_limit = %d\n' % R.randint(1, (bufs or 256)-1)
    bb = 32768
    if maybe(0.3): bb = ch(64, 1024, 4096, 32768, 65536, 1<<20); s += 'buffer_bytes = %d\n' % bb
    if maybe(0.5) or bb < 12320: s += 'eager_threshold = %d\n' % ch(0, 1, max(0,bb-32), R.randint(0, max(0,bb-32)))
    if maybe(0.3): s += 'compute_scale = %s\n' % fnum(ch(0.0, 0.001, 0.5, 1.0, 10.0, 1000.0))
    return s, ranks, rph

for i in range(N):
    k = KINDS[i % len(KINDS)]
    prof = ch(*PROFILES)
    ov, hw_mtu = overrides()
    tk, hosts, tsec = topo()
    if k == 'mpi':
        w, ranks, rph = mpi(tk, hosts)
        need = -(-ranks // rph)
        if tk == 'back-to-back' and need > 2 or maybe(0.5):
            hosts = max(2, need + ch(0,0,1,3)); tk = 'single-switch'
            tsec = 'kind = "single-switch"\nhosts = %d\n' % hosts
    else:
        w = {'perftest': perftest, 'srq': srq, 'odp': odp, 'flows': flows}[k](tk, hosts)
    s = 'name = "fz%d"\nseed = %d\n' % (i, R.randint(0, 1000))
    s += '[hardware]\nprofile = "%s"\n' % prof
    if ov:
        s += '[hardware.overrides]\n' + ''.join('%s = %s\n' % kv for kv in ov.items())
    if maybe(0.1):
        s += '[[hardware.hosts]]\nhosts = [%d]\n' % R.randrange(hosts + 1)
        if maybe(0.6): s += 'profile = "%s"\n' % ch(*PROFILES)
        if maybe(0.4): s += 'overrides = { tx_packet_ns = %s }\n' % fnum(ch(0.0, 1.0, 100.0, 1e6))
    if tsec or maybe(): s += '[topology]\n' + tsec
    if maybe(0.3): s += 'cable_m = %s\n' % fnum(ch(0.001, 1.0, 2.0, 100.0, 10000.0)) if tsec else ''
    if maybe(0.6): s += qp(hw_mtu)
    s += '[workload]\n' + w
    s += faults(tk, hosts)
    if maybe(0.15):
        s += '[output]\ncapture = true\n'
        if maybe(0.3): s += 'capture_max_packets = %d\n' % ch(1, 10, 1000)
        if maybe(0.3): s += 'capture_hosts = [%d]\n' % R.randrange(hosts)
        if maybe(0.2): s += 'capture_qps = [%d]\n' % R.randrange(1, 50)
    s += '[limits]\nmax_sim_time_ms = %s\nmax_events = %d\n' % (fnum(ch(1.0, 10.0, 100.0, 1000.0, 5000.0)), ch(300000, 1000000, 2000000))
    open(os.path.join(OUT, '%s_%05d.toml' % (k, i)), 'w').write(s)
