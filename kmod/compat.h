/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels nvmet-qos is built and tested for
 * (Debian 12's 6.1 and 6.12), kept in one place. nvmet's own structures
 * need nothing here: the build proves its copy of nvmet.h against each
 * kernel's Module.symvers.
 */
#ifndef NVMET_QOS_COMPAT_H
#define NVMET_QOS_COMPAT_H

#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/version.h>
#include <net/genetlink.h>

/*
 * The I/O path turns interrupts off once a request and takes its
 * spinlocks inside that section (hook.c's trampoline and completion).
 * On PREEMPT_RT a spinlock is a sleeping lock, which must not be taken
 * with interrupts off: such a build would load, then take a lock that
 * may sleep with interrupts off on every request. Refuse it at build
 * time, so that DKMS says why instead.
 */
#ifdef CONFIG_PREEMPT_RT
#error "nvmet-qos does not support PREEMPT_RT kernels (its I/O path takes spinlocks with interrupts off)"
#endif

/*
 * One entry of a module's table of exported symbols, laid out as the
 * kernel's __KSYMTAB emits it for every module (<linux/export-internal.h>,
 * which modpost's generated .mod.c files include): the symbol, its name
 * and its namespace, each a 32-bit offset from the field itself where the
 * architecture has PREL32 relocations, else a pointer. The module loader's
 * struct kernel_symbol describes the same entries, but modules can no
 * longer see it in 6.12.
 */
struct nq_ksym {
#ifdef CONFIG_HAVE_ARCH_PREL32_RELOCATIONS
	int value_offset;
	int name_offset;
	int namespace_offset;
#else
	unsigned long value;
	const char *name;
	const char *namespace;
#endif
};

/* 6.1 still declares it in <linux/export.h>: check ours against it there. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
static_assert(sizeof(struct nq_ksym) == sizeof(struct kernel_symbol));
#endif

static inline const char *nq_ksym_name(const struct nq_ksym *sym)
{
#ifdef CONFIG_HAVE_ARCH_PREL32_RELOCATIONS
	return offset_to_ptr(&sym->name_offset);
#else
	return sym->name;
#endif
}

/* The i-th GPL-only symbol @mod exports. */
static inline const char *nq_gpl_sym_name(const struct module *mod,
					  unsigned int i)
{
	const struct nq_ksym *syms = (const struct nq_ksym *)mod->gpl_syms;

	return nq_ksym_name(&syms[i]);
}

/*
 * The attributes genetlink parsed for a dump request: 6.1 keeps them in
 * struct genl_dumpit_info itself, 6.12 in the struct genl_info inside it.
 */
static inline struct nlattr **nq_dump_attrs(struct netlink_callback *cb)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
	return genl_dumpit_info(cb)->attrs;
#else
	return genl_info_dump(cb)->attrs;
#endif
}

/*
 * Open the block device @devt for reading, not exclusively, its bdev in
 * *@bdev: a handle for nq_bdev_close(), or an ERR_PTR. 6.1 hands out the
 * block device itself, 6.12 a file on it.
 */
static inline void *nq_bdev_open(dev_t devt, struct block_device **bdev)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
	*bdev = blkdev_get_by_dev(devt, FMODE_READ, NULL);
	return *bdev;
#else
	struct file *f = bdev_file_open_by_dev(devt, BLK_OPEN_READ, NULL, NULL);

	if (!IS_ERR(f))
		*bdev = file_bdev(f);
	return f;
#endif
}

static inline void nq_bdev_close(void *handle)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
	blkdev_put(handle, FMODE_READ);
#else
	fput(handle);
#endif
}

#endif /* NVMET_QOS_COMPAT_H */
