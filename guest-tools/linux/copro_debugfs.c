// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: debugfs (/sys/kernel/debug/dri/N/).
 *
 *   copro_regs      the identification, interrupt and display registers
 *   copro_state     interrupt mode, per-engine and display counters
 *   copro_engines   the rings: jobs, preemptions, resets, bans
 *   copro_inject    fault injection (write "ENGINE VALUE")
 *   vram-mm         the VRAM allocator (drm_vram_helper)
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_vram_helper.h>

#include "copro_drv.h"

static const struct {
	const char *name;
	u32 reg;
	bool wide;
} copro_dump_regs[] = {
#define R32(r) { #r, COPRO_REG_##r, false }
#define R64(r) { #r, COPRO_REG_##r, true }
	R32(ID), R32(VERSION), R32(CAPS), R32(NUM_ENGINES), R64(VRAM_SIZE),
	R64(APERTURE_SIZE), R32(PREEMPT_CAPS), R32(MSIX_VECTORS),
	R64(GPU_TIME), R64(INT_STATUS), R64(INT_MASK),
	R32(DISP_CONTROL), R32(DISP_STATUS), R64(DISP_SURFACE),
	R32(DISP_PITCH), R32(DISP_WIDTH), R32(DISP_HEIGHT), R32(DISP_FORMAT),
	R64(DISP_FLIP), R64(DISP_SCANOUT), R64(DISP_VSYNC_COUNT),
	R64(DISP_VSYNC_TIME), R64(DISP_FLIP_ADDR), R64(DISP_FLIP_VSYNC),
	R64(DISP_FLIPS), R64(DISP_FLIPS_REPLACED), R64(DISP_PERIOD_NS),
	R32(DISP_REFRESH), R32(DISP_ERROR), R64(DISP_ERROR_ADDR),
	R32(CURSOR_CONTROL), R32(CURSOR_POS), R64(CURSOR_SURFACE),
	R32(DISP_CRC_CONTROL), R64(DISP_CRC), R64(DISP_CRC_VSYNC),
	R32(DISP_MODE_SIZE), R32(DISP_PLANE_POS), R32(DISP_BACKGROUND),
#undef R32
#undef R64
};

static int copro_regs_show(struct seq_file *m, void *unused)
{
	struct drm_info_node *node = m->private;
	struct copro_device *cdev = to_copro(node->minor->dev);
	int i;

	for (i = 0; i < ARRAY_SIZE(copro_dump_regs); i++) {
		u32 reg = copro_dump_regs[i].reg;

		if (copro_dump_regs[i].wide)
			seq_printf(m, "%-20s 0x%03x 0x%016llx\n",
				   copro_dump_regs[i].name, reg,
				   copro_rd64(cdev, reg));
		else
			seq_printf(m, "%-20s 0x%03x 0x%08x\n",
				   copro_dump_regs[i].name, reg,
				   copro_rd32(cdev, reg));
	}
	return 0;
}

static int copro_state_show(struct seq_file *m, void *unused)
{
	struct drm_info_node *node = m->private;
	struct copro_device *cdev = to_copro(node->minor->dev);
	static const char * const modes[] = { "intx", "msi", "msix" };
	unsigned int e;

	seq_printf(m, "irq_mode: %s\nvectors: %d\nint_mask: 0x%llx\n",
		   modes[cdev->irq_mode], cdev->nvec, cdev->int_mask);
	seq_printf(m, "refresh: %u\nperiod_ns: %llu\n", cdev->refresh,
		   cdev->period_ns);
	seq_printf(m, "device_irqs: %llu\nvsyncs: %llu\nflips_done: %llu\ndisplay_errors: %llu\n",
		   cdev->dev_irqs, cdev->vsyncs, cdev->flips_done,
		   cdev->display_errors);
	seq_printf(m, "display: %s %ux%u pitch %u format %u\n",
		   cdev->hw_on ? "on" : "off", cdev->hw_width, cdev->hw_height,
		   cdev->hw_pitch, cdev->hw_format);
	seq_printf(m, "flip_event: %s\n", cdev->flip_event ? "pending" : "none");
	seq_printf(m, "crc: %s, %llu latched\n", cdev->crc_on ? "on" : "off",
		   cdev->crcs);
	seq_printf(m, "resets: %llu\n", cdev->resets);
	seq_printf(m, "vblank_error_ns: %d\n", READ_ONCE(cdev->vblank_error_ns));
	for (e = 0; e < cdev->num_engines; e++)
		seq_printf(m, "engine%u: irqs %llu last 0x%llx\n", e,
			   cdev->engines[e].irqs, cdev->engines[e].last_causes);
	return 0;
}

static int copro_engines_dfs_show(struct seq_file *m, void *unused)
{
	struct drm_info_node *node = m->private;

	copro_engines_show(to_copro(node->minor->dev), m);
	return 0;
}

/*
 * copro_inject: "ENGINE VALUE" writes VALUE to the engine's INJECT
 * register (x-fault-injection=on only): the hang tests' way in.
 */
static ssize_t copro_inject_write(struct file *f, const char __user *ubuf,
				  size_t len, loff_t *pos)
{
	struct copro_device *cdev = file_inode(f)->i_private;
	unsigned int e, val;
	char buf[32];

	if (!(cdev->caps & COPRO_CAP_FAULT_INJECTION))
		return -ENODEV;
	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%u %i", &e, &val) != 2 || e >= cdev->num_engines ||
	    val & ~COPRO_INJECT_ALL)
		return -EINVAL;
	copro_wr32(cdev, COPRO_ENG_BASE(e) + COPRO_ENG_INJECT, val);
	return len;
}

static const struct file_operations copro_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = copro_inject_write,
	.llseek = noop_llseek,
};

static const struct drm_info_list copro_debugfs_list[] = {
	{ "copro_regs", copro_regs_show, 0 },
	{ "copro_state", copro_state_show, 0 },
	{ "copro_engines", copro_engines_dfs_show, 0 },
};

void copro_debugfs_init(struct drm_minor *minor)
{
	drm_debugfs_create_files(copro_debugfs_list,
				 ARRAY_SIZE(copro_debugfs_list),
				 minor->debugfs_root, minor);
	drm_vram_mm_debugfs_init(minor);
	debugfs_create_file("copro_inject", 0200, minor->debugfs_root,
			    to_copro(minor->dev), &copro_inject_fops);
}
