/* SPDX-License-Identifier: GPL-2.0-or-later */
/* callgraph: what call stacks add up to (-g). agg keeps each symbol's self
 * and children counts; this keeps who calls whom (edges with counts) and a
 * call-path tree, comm at the root and the outermost frame first, for
 * folded stacks and flame graphs. The tree is bounded: stacks that would
 * need a node past the bound count as "other". Owned and fed by agg. */
#ifndef PERFTOP_CALLGRAPH_H
#define PERFTOP_CALLGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"

#define CG_MAX_NODES_DEFAULT ((size_t)1 << 18)

struct cg;

struct cg *callgraph_new(size_t nevents, size_t max_nodes);
void callgraph_free(struct cg *g);

/* One sample's stack: frames[0] the leaf, frames[n-1] the outermost. */
void callgraph_add(struct cg *g, size_t ev, const char *comm, const struct agg_sym *const *frames, size_t n);

/* For agg's stack memo. callgraph_add, returning the leaf's node, or UINT32_MAX
 * when the stack went to "other" or an edge could not be kept with its
 * node: such a path is not replayed. Nodes and edges are never freed, so an
 * index stays the same path for good. */
uint32_t callgraph_add_path(struct cg *g, size_t ev, const char *comm, const struct agg_sym *const *frames, size_t n);
/* The nodes from leaf (a callgraph_add_path result) up to the root, into out; 0
 * if more than max. */
size_t callgraph_path_nodes(const struct cg *g, uint32_t leaf, uint32_t *out, size_t max);
/* Counts that path again hits times, nodes and edges, as callgraph_add of the
 * same stack would each time. mark false: it was counted since the last callgraph_roll, so its nodes
 * and edges are on the roll's lists already. */
void callgraph_add_nodes(struct cg *g, size_t ev, const uint32_t *nodes, size_t n, uint64_t hits, bool mark);

/* Interval counts scaled by decay_pct/100 (0: zeroed), as agg_roll. */
void callgraph_roll(struct cg *g, unsigned decay_pct);

/* A caller or callee of a symbol, with the samples of event ev that went
 * through that edge. */
struct cg_link {
	const struct agg_sym *sym;
	uint64_t samples;
};

/* The top `max` callers (or callees) of sym by samples of ev in scope,
 * most first. */
size_t callgraph_callers(const struct cg *g, const struct agg_sym *sym, enum agg_scope scope, size_t ev,
		  struct cg_link *out, size_t max);
size_t callgraph_callees(const struct cg *g, const struct agg_sym *sym, enum agg_scope scope, size_t ev,
		  struct cg_link *out, size_t max);

/* A node of the call-path tree as the walk shows it. */
struct cg_frame {
	const char *name;          /* the comm at depth 0, else the symbol */
	const struct agg_sym *sym; /* NULL at depth 0 */
};

/* Visits every path that ends a stack (samples > 0 ending exactly there),
 * root first: path[0] is the comm, path[depth-1] the leaf. */
typedef void (*cg_path_fn)(void *arg, const struct cg_frame *path, size_t depth, uint64_t samples);
void callgraph_walk_paths(const struct cg *g, enum agg_scope scope, size_t ev, cg_path_fn fn, void *arg);

/* The whole tree, for drawing: node i's parent (node 0 is the root, its own
 * parent), frame and inclusive samples; children come after their parent. */
size_t callgraph_nodes(const struct cg *g);
size_t callgraph_node_parent(const struct cg *g, size_t i);
struct cg_frame callgraph_node_frame(const struct cg *g, size_t i);
uint64_t callgraph_node_samples(const struct cg *g, size_t i, enum agg_scope scope, size_t ev);

/* Samples whose stacks did not fit the tree's bound. */
uint64_t callgraph_other(const struct cg *g, enum agg_scope scope, size_t ev);

#endif
