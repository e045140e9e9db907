// SPDX-License-Identifier: GPL-2.0
/*
 * insn-prof: a QEMU TCG plugin that counts the instructions the guest
 * executes at each code address, for bench/vm-insn-prof (profiles of one
 * read, stock nvmet against nvmet-qos, function by function).
 *
 * Every translation block gets a counter that the translated code itself
 * increments (an inline add, no call out of the generated code); the
 * instructions a block executed are its runs times its length. The guest
 * asks for a dump by executing "xchg %bx,%bx" (66 87 db), an instruction
 * nothing else executes: the counts since the last dump go to OUT.N
 * (N = 1, 2, ...) as "ADDRESS INSTRUCTIONS RUNS" lines, one per block start (a
 * function's calls are the runs of the block at its address), and start
 * again from zero. A block that ends in a direct call or jump (e8 or e9 and
 * a 32-bit displacement) adds "TARGET TAKEN": where it goes and how many of
 * the runs got there, which says who calls whom (a translation cut short by
 * -icount ends before it). The file is complete before the guest runs its
 * next instruction, so a guest that sees the host's file system can read it
 * at once.
 *
 * Usage: qemu-system-x86_64 -plugin PATH/insn-prof.so,out=PREFIX ...
 *
 * Debian's QEMU (7.2) exports the plugin API but ships no header for it;
 * the few calls used are declared here, as its API version 1 has them.
 * Single-threaded TCG only (scripts/vm --icount): the counters are plain.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_info_t;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*vcpu_udata_cb)(unsigned int vcpu, void *udata);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    vcpu_udata_cb cb,
					    enum qemu_plugin_cb_flags flags,
					    void *udata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static const unsigned char mark[] = { 0x66, 0x87, 0xdb };

/*
 * One translation of a block: where it starts, its length, its runs, and
 * where its last instruction calls or jumps to (0: nowhere known).
 */
struct block {
	uint64_t vaddr;
	uint64_t n;
	uint64_t runs;
	uint64_t to;
};

/*
 * Blocks in chunks that never move, since the translated code holds the
 * address of each counter. A block translated again gets a new entry;
 * the dump adds up the entries of one address.
 */
#define CHUNK	65536
static struct block **chunks;
static size_t nr_chunks, nr_blocks;
static char *prefix;
static unsigned int dumps;

static struct block *block_new(uint64_t vaddr, uint64_t n)
{
	struct block *b;

	if (nr_blocks == nr_chunks * CHUNK) {
		chunks = realloc(chunks, (nr_chunks + 1) * sizeof(*chunks));
		if (!chunks || !(chunks[nr_chunks] = calloc(CHUNK, sizeof(**chunks)))) {
			fprintf(stderr, "insn-prof: out of memory\n");
			exit(1);
		}
		nr_chunks++;
	}
	b = &chunks[nr_blocks / CHUNK][nr_blocks % CHUNK];
	nr_blocks++;
	b->vaddr = vaddr;
	b->n = n;
	return b;
}

static int by_vaddr(const void *a, const void *b)
{
	const struct block *x = *(struct block *const *)a;
	const struct block *y = *(struct block *const *)b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* The counts since the last dump to PREFIX.N, then zero. */
static void dump(void)
{
	struct block **all = malloc(nr_blocks * sizeof(*all) + 1);
	char path[4096], done[4096];
	size_t i, j;
	FILE *f;

	if (!all)
		return;
	for (i = 0; i < nr_blocks; i++)
		all[i] = &chunks[i / CHUNK][i % CHUNK];
	qsort(all, nr_blocks, sizeof(*all), by_vaddr);
	snprintf(done, sizeof(done), "%s.%u", prefix, ++dumps);
	snprintf(path, sizeof(path), "%s.%u.tmp", prefix, dumps);
	f = fopen(path, "w");
	for (i = 0; f && i < nr_blocks; i = j) {
		uint64_t insns = 0, runs = 0, to = 0, taken = 0;

		/* Its translations that end in a branch all end in the same one. */
		for (j = i; j < nr_blocks && all[j]->vaddr == all[i]->vaddr; j++) {
			insns += all[j]->runs * all[j]->n;
			runs += all[j]->runs;
			if (all[j]->to) {
				to = all[j]->to;
				taken += all[j]->runs;
			}
			all[j]->runs = 0;
		}
		if (!runs)
			continue;
		fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64, all[i]->vaddr,
			insns, runs);
		if (taken)
			fprintf(f, " %" PRIx64 " %" PRIu64, to, taken);
		fputc('\n', f);
	}
	free(all);
	if (!f || fclose(f)) {
		fprintf(stderr, "insn-prof: cannot write %s\n", path);
		return;
	}
	/* Renamed when whole: a reader never sees half a dump. */
	if (rename(path, done))
		fprintf(stderr, "insn-prof: cannot rename %s to %s\n", path, done);
}

static void on_mark(unsigned int vcpu, void *udata)
{
	dump();
}

/* Where @insn calls or jumps to, if it is e8/e9 with a 32-bit displacement. */
static uint64_t branch_to(const struct qemu_plugin_insn *insn)
{
	const unsigned char *p = qemu_plugin_insn_data(insn);
	int32_t disp;

	if (qemu_plugin_insn_size(insn) != 5 || (p[0] != 0xe8 && p[0] != 0xe9))
		return 0;
	memcpy(&disp, p + 1, sizeof(disp));
	return qemu_plugin_insn_vaddr(insn) + 5 + (int64_t)disp;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b = block_new(qemu_plugin_tb_vaddr(tb), n);

	if (n)
		b->to = branch_to(qemu_plugin_tb_get_insn(tb, n - 1));

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->runs, 1);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(mark) &&
		    !memcmp(qemu_plugin_insn_data(insn), mark, sizeof(mark)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
							       QEMU_PLUGIN_CB_NO_REGS,
							       NULL);
	}
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			prefix = argv[i] + 4;
	if (!prefix) {
		fprintf(stderr, "insn-prof: wants out=PREFIX\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	return 0;
}
