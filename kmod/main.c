// SPDX-License-Identifier: GPL-2.0
/*
 * nvmet-qos: per-host quality of service for the Linux NVMe-oF target.
 *
 * Module init and exit. The hook goes last on init, so no request is ever
 * seen before the tables and the control interface exist, and first on exit,
 * so every request that went through us has finished before they go.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/module.h>
#include <net/genetlink.h>

#include "nvmet-qos.h"

static int __init nq_init(void)
{
	int ret;

#ifdef NQ_MUTANT
	pr_warn("mutant build \"%s\": broken on purpose for the mutation checks, never for use\n",
		NQ_MUTANT_NAME);
#endif
#ifdef NQ_FAULT
	pr_warn("fault build \"%s\": failures made certain for the tests, never for use\n",
		NQ_FAULT_NAME);
#endif
	ret = nq_policy_init();
	if (ret)
		return ret;
	ret = nq_hosts_init();
	if (ret)
		return ret;
	ret = nq_domains_init(&nq_hook_req_ops);
	if (ret)
		goto err_hosts;
	ret = nq_netlink_init();
	if (ret)
		goto err_domains;
	ret = nq_hook_init();
	if (ret)
		goto err_netlink;
	return 0;

err_netlink:
	nq_ctrls_exit();
	nq_netlink_exit();
err_domains:
	nq_hosts_stop();
	nq_domains_exit();
err_hosts:
	nq_hosts_exit();
	return ret;
}

static void __exit nq_exit(void)
{
	unsigned long t = jiffies;

	nq_hook_exit();
	nq_ctrls_exit();
	nq_events_exit();
	nq_netlink_exit();
	nq_hosts_stop();
	nq_domains_exit();
	nq_hosts_exit();
	/*
	 * An unload's time is ours up to here; after this returns, the module
	 * loader waits for RCU grace periods of its own. On a starved machine
	 * those can take tens of seconds, and this line tells them apart.
	 */
	pr_info("exit done in %u ms\n", jiffies_to_msecs(jiffies - t));
}

module_init(nq_init);
module_exit(nq_exit);
MODULE_DESCRIPTION("Per-host quality of service for the NVMe-oF target");
MODULE_LICENSE("GPL");
#ifdef NQ_MUTANT
MODULE_INFO(mutant, NQ_MUTANT_NAME);
#endif
#ifdef NQ_FAULT
MODULE_INFO(fault, NQ_FAULT_NAME);
#endif
MODULE_ALIAS_GENL_FAMILY(NVMET_QOS_FAMILY_NAME);
