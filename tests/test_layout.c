/* test_layout.c: the seeds' worked numbers, IREE's derived layouts, and
 * property tests of ownership over random valid configs. */
#include "testutil.h"

static ls_derived *derive_example(const char *file, ls_problem *p_out)
{
    ls_diag d;
    ls_module *m = load_example(file, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    ck_assert_int_ge(m->n_problems, 1);
    *p_out = m->problems[0];
    free(m);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ck_assert_msg(ls_derive(p_out, dv, &d) == LS_OK, "%s", d.msg);
    return dv;
}

static void assert_list(const int64_t *got, const int64_t *want, int n)
{
    for (int i = 0; i < n; i++)
        REQUIRE(got[i] == want[i], "entry %d: got %lld want %lld", i, (long long)got[i],
                (long long)want[i]);
}

START_TEST(thread42_delinearize)
{
    int64_t c[3];
    ls_delinearize(42, (int64_t[]){16, 4}, 2, c);
    assert_list(c, (int64_t[]){0, 10, 2}, 3); /* c0 = 0, c1 = 10, c2 = 2 */
    ls_basis b = {0};
    b.present = true;
    b.counts.n = b.mapping.n = 2;
    b.counts.v[0] = 16;
    b.counts.v[1] = 4;
    b.mapping.v[0] = 1;
    b.mapping.v[1] = 0;
    int64_t dims[2];
    ls_basis_coords(&b, 2, 42, dims);
    assert_list(dims, (int64_t[]){2, 10}, 2); /* [parallel = 2, reduction = 10] */
    int64_t sizes[2], strides[2];
    ls_basis_dims(&b, 2, sizes, strides);
    assert_list(sizes, (int64_t[]){4, 16}, 2);
    assert_list(strides, (int64_t[]){1, 4}, 2);
}
END_TEST

START_TEST(delinearize_inverse)
{
    uint64_t rng = 7;
    for (int it = 0; it < 2000; it++) {
        int n = (int)rng_range(&rng, 1, 5);
        int64_t b[5], prod = 1;
        for (int i = 0; i < n; i++)
            prod *= b[i] = rng_range(&rng, 1, 9);
        int64_t x = rng_range(&rng, 0, 4 * prod), c[6];
        ls_delinearize(x, b, n, c);
        int64_t back = c[0];
        for (int i = 0; i < n; i++) {
            REQUIRE(c[i + 1] >= 0 && c[i + 1] < b[i], "c[i + 1] >= 0 && c[i + 1] < b[i]");
            back = back * b[i] + c[i + 1];
        }
        REQUIRE((back) == (x), "back != x");
    }
}
END_TEST

static ls_nested_layout mk_layout(int rank, const int64_t *sg, const int64_t *ba,
                                  const int64_t *ou, const int64_t *th, const int64_t *el,
                                  const int64_t *sgs, const int64_t *ths)
{
    ls_nested_layout l;
    memset(&l, 0, sizeof l);
    l.rank = rank;
    memcpy(l.subgroup_tile, sg, (size_t)rank * 8);
    memcpy(l.batch_tile, ba, (size_t)rank * 8);
    memcpy(l.outer_tile, ou, (size_t)rank * 8);
    memcpy(l.thread_tile, th, (size_t)rank * 8);
    memcpy(l.element_tile, el, (size_t)rank * 8);
    memcpy(l.subgroup_strides, sgs, (size_t)rank * 8);
    memcpy(l.thread_strides, ths, (size_t)rank * 8);
    return l;
}

START_TEST(subgroup_order)
{
    ls_nested_layout l = mk_layout(2, (int64_t[]){4, 2}, (int64_t[]){1, 1}, (int64_t[]){1, 1},
                                   (int64_t[]){1, 1}, (int64_t[]){1, 1}, (int64_t[]){1, 4},
                                   (int64_t[]){0, 0});
    static const int64_t want[8] = {0, 4, 1, 5, 2, 6, 3, 7};
    int k = 0;
    for (int64_t a = 0; a < 4; a++)
        for (int64_t b = 0; b < 2; b++) {
            int64_t vs[2] = {a, b};
            ck_assert_int_eq(ls_nl_subgroup_of(&l, vs), want[k]);
            ck_assert_int_eq(ls_nl_subgroup_of(&l, vs) % 4, want[k] % 4); /* 0,0,1,1,2,2,3,3 */
            ck_assert_int_eq(want[k] % 4, k / 2);
            int64_t back[2];
            ls_nl_virtual_subgroup(&l, want[k], back);
            assert_list(back, vs, 2);
            k++;
        }
}
END_TEST

START_TEST(nested_64x64)
{
    ls_diag d;
    ls_module *m = load_example("seed002_nested_64x64.mlir", &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    const ls_nested_layout *l = &m->layouts[0].layout;
    int64_t shape[2];
    ls_nl_distributed_shape(l, shape);
    assert_list(shape, (int64_t[]){2, 16}, 2); /* vector<2x16> */
    ck_assert_int_eq(ls_nl_extent(l, 0), 64);
    ck_assert_int_eq(ls_nl_extent(l, 1), 64);
    int64_t vt[2];
    ls_nl_virtual_thread(l, 1, vt);
    assert_list(vt, (int64_t[]){1, 0}, 2); /* thread1 -> [.., 1, 0, ..] */
    ls_nl_virtual_thread(l, 16, vt);
    assert_list(vt, (int64_t[]){0, 1}, 2); /* thread16 -> [.., 0, 1, ..] */
    int64_t vs[2];
    ls_nl_virtual_subgroup(l, 2, vs); /* subgroup 2 takes subgroup 0's slice */
    assert_list(vs, (int64_t[]){0, 0}, 2);
    ls_nl_virtual_subgroup(l, 3, vs);
    assert_list(vs, (int64_t[]){1, 0}, 2);
    /* thread 16 of subgroup 1, batch (1, 2), element 3: row (1*2+1)*16 + 0, col (2*4+1)*4 + 3 */
    ls_nl_coord c;
    memset(&c, 0, sizeof c);
    c.subgroup[0] = 1;
    c.batch[0] = 1;
    c.batch[1] = 2;
    c.thread[1] = 1;
    c.element[1] = 3;
    int64_t idx[2];
    ls_nl_compose(l, &c, idx);
    assert_list(idx, (int64_t[]){48, 39}, 2);
    free(m);
}
END_TEST

START_TEST(nested_roundtrip)
{
    uint64_t rng = 99;
    for (int it = 0; it < 300; it++) {
        ls_nested_layout l;
        memset(&l, 0, sizeof l);
        l.rank = (int)rng_range(&rng, 1, 3);
        for (int i = 0; i < l.rank; i++) {
            l.subgroup_tile[i] = rng_range(&rng, 1, 3);
            l.batch_tile[i] = rng_range(&rng, 1, 3);
            l.outer_tile[i] = rng_range(&rng, 1, 2);
            l.thread_tile[i] = rng_range(&rng, 1, 4);
            l.element_tile[i] = rng_range(&rng, 1, 3);
        }
        int64_t ext[3] = {1, 1, 1}, total = 1;
        for (int i = 0; i < l.rank; i++)
            total *= ext[i] = ls_nl_extent(&l, i);
        /* every position when small, else a deterministic sample of 20000 */
        int64_t samples = total < 20000 ? total : 20000;
        for (int64_t n = 0; n < samples; n++) {
            int64_t lin = samples == total ? n : rng_range(&rng, 0, total - 1);
            int64_t idx[3], rem = lin, back[3];
            for (int i = l.rank - 1; i >= 0; i--) {
                idx[i] = rem % ext[i];
                rem /= ext[i];
            }
            ls_nl_coord c;
            REQUIRE(ls_nl_decompose(&l, idx, &c), "ls_nl_decompose(&l, idx, &c)");
            ls_nl_compose(&l, &c, back);
            assert_list(back, idx, l.rank);
            ls_nl_coord c2;
            ls_nl_register_coord(&l, ls_nl_register_of(&l, &c), &c2);
            for (int i = 0; i < l.rank; i++)
                REQUIRE(c2.batch[i] == c.batch[i] && c2.outer[i] == c.outer[i] &&
                          c2.element[i] == c.element[i], "c2.batch[i] == c.batch[i] && c2.outer[i] == c.outer[i] &&                           c2.element[i] == c.element[i]");
        }
        int64_t oob[3] = {ext[0], 0, 0};
        ls_nl_coord c;
        REQUIRE(!ls_nl_decompose(&l, oob, &c), "!ls_nl_decompose(&l, oob, &c)");
    }
}
END_TEST

START_TEST(example1_derived)
{
    ls_problem p;
    ls_derived *d = derive_example("seed000_example1.mlir", &p);
    ck_assert_int_eq(d->iterations[2], 32);  /* 16384 / 512 */
    ck_assert_int_eq(d->chunk[2], 512);
    ck_assert_int_eq(d->lanes[2], 64);
    ck_assert_int_eq(d->elems_per_load, 8);
    ck_assert_int_eq(d->red_elems_per_iteration, 8);
    ck_assert_int_eq(d->layout_lanes * d->elems_per_load, 512); /* 64 x 8 per iteration */
    ck_assert_int_eq(d->workgroup_size, 64);
    ck_assert_int_eq(d->num_subgroups, 1);
    ck_assert_int_eq(d->wg_tile[0], 4);
    ck_assert_int_eq(d->wg_tile[1], 1);
    ck_assert_int_eq(d->total_workgroups, 6656); /* 4/4 x 6656/1 */
    /* GPUPackPartialReductions, as in gpu_pack_partial_reductions.mlir:
     * [0,0,512]/[0,0,8]/[[1,1,64]] -> body [4, 1, 64, 8] */
    ck_assert(d->packed[2]);
    ck_assert_int_eq(d->body_rank, 4);
    assert_list(d->body_bound, (int64_t[]){4, 1, 64, 8}, 4);
    assert_list(d->layout.thread_tile, (int64_t[]){1, 1, 64, 1}, 4);
    assert_list(d->layout.thread_strides, (int64_t[]){0, 0, 1, 0}, 4);
    assert_list(d->layout.element_tile, (int64_t[]){1, 1, 1, 8}, 4);
    assert_list(d->layout.batch_tile, (int64_t[]){4, 1, 1, 1}, 4);
    ck_assert_int_eq(d->n_warnings, 0);
    /* thread 5 loads k = 8*5 .. 8*5+7 of rows 0..3 in iteration 0 */
    int64_t zero[3] = {0, 0, 0}, x[3];
    bool valid;
    ls_thread_element(d, &p, 5, zero, zero, 3, x, &valid); /* batch 0, element 3 */
    ck_assert(valid);
    assert_list(x, (int64_t[]){0, 0, 43}, 3);
    ls_thread_element(d, &p, 5, zero, zero, 8 + 7, x, &valid); /* batch 1, element 7 */
    assert_list(x, (int64_t[]){1, 0, 47}, 3);
    free(d);
}
END_TEST

START_TEST(example2_derived)
{
    ls_problem p;
    ls_derived *d = derive_example("seed000_example2.mlir", &p);
    /* The seed says "1152 / 32 = 36 loop iterations": the loop walks the
     * reduction dim d1 (384), so the truth is 384 / 32 = 12. */
    ck_assert_int_eq(d->iterations[1], 12);
    ck_assert_int_eq(d->total_iterations, 12);
    ck_assert_int_eq(d->workgroup_size, 128);  /* 64 x 2 */
    ck_assert_int_eq(d->num_subgroups, 2);
    ck_assert_int_eq(d->total_workgroups, 72); /* 1152 / 16 */
    ck_assert_int_eq(d->lanes[0], 4);
    ck_assert_int_eq(d->lanes[1], 16);
    ck_assert_int_eq(d->subgroups[1], 2);
    ck_assert_int_eq(d->elems_per_load, 1);
    ck_assert_int_eq(d->red_elems_per_iteration, 1);
    /* reference §2.2 worked example */
    assert_list(d->layout.subgroup_tile, (int64_t[]){1, 2}, 2);
    assert_list(d->layout.batch_tile, (int64_t[]){4, 1}, 2);
    assert_list(d->layout.thread_tile, (int64_t[]){4, 16}, 2);
    assert_list(d->layout.element_tile, (int64_t[]){1, 1}, 2);
    assert_list(d->layout.subgroup_strides, (int64_t[]){0, 1}, 2);
    assert_list(d->layout.thread_strides, (int64_t[]){1, 4}, 2);
    /* element [2, 10] in iteration 0 belongs to thread 42, register 0 */
    ls_ownership o;
    ls_diag dg;
    ls_diag_clear(&dg);
    ck_assert_int_eq(ls_owner_of(d, &p, (int64_t[]){2, 10}, &o, &dg), LS_OK);
    ck_assert_int_eq(o.n_owners, 1);
    ck_assert_int_eq(o.owners[0].tid, 42);
    ck_assert_int_eq(o.reg, 0);
    ck_assert_int_eq(o.iteration, 0);
    ck_assert_int_eq(o.workgroup, 0);
    /* subgroup 1 takes positions 16..31: [6, 26] -> thread 64 + 4*10 + 2, batch 1 */
    ck_assert_int_eq(ls_owner_of(d, &p, (int64_t[]){6, 26}, &o, &dg), LS_OK);
    ck_assert_int_eq(o.owners[0].tid, 106);
    ck_assert_int_eq(o.owners[0].subgroup, 1);
    ck_assert_int_eq(o.reg, 1);
    /* lane l handles K index 32*k0 + 16*s + (l/4)%16: [1000 % 16, 32*11 + 16 + 5] */
    ck_assert_int_eq(ls_owner_of(d, &p, (int64_t[]){1000, 32 * 11 + 16 + 5}, &o, &dg), LS_OK);
    ck_assert_int_eq(o.iteration, 11);
    ck_assert_int_eq(o.workgroup, 62);
    ck_assert_int_eq(o.owners[0].tid, 64 + 5 * 4 + (1000 % 16) % 4);
    ck_assert_int_eq(ls_owner_of(d, &p, (int64_t[]){1152, 0}, &o, &dg), LS_ERR_INVALID);
    free(d);
}
END_TEST

START_TEST(example3_derived)
{
    ls_problem p;
    ls_derived *d = derive_example("seed000_example3.mlir", &p);
    ck_assert_int_eq(d->iterations[1], 32); /* d1 walked one element at a time */
    ck_assert_int_eq(d->iterations[2], 1);  /* d2's loop is elided */
    ck_assert_int_eq(d->total_iterations, 32);
    ck_assert_int_eq(d->elems_per_load, 2); /* 2 elements per thread per iteration per row */
    ck_assert_int_eq(d->red_elems_per_iteration, 2);
    ck_assert_int_eq(d->layout_lanes * d->red_elems_per_iteration, 128); /* 64 x 2 */
    ck_assert_int_eq(d->workgroup_size, 64);
    ck_assert_int_eq(d->num_subgroups, 1);
    ck_assert_int_eq(d->wg_tile[0], 8);
    ck_assert_int_eq(d->total_workgroups, 512);
    ck_assert_int_eq(d->loads_per_iteration, 8); /* one per row of the tile */
    free(d);
}
END_TEST

START_TEST(reference_multiple_stores)
{
    /* reference §2.2: 4x4096 f32 on gfx942: P = 4096, TL = 4, 64 lanes, 16 subgroups. */
    ls_diag dg;
    ls_module *m = load_text(
        "%r = linalg.reduce ins(%a : tensor<4x4096xf32>) outs(%b : tensor<4xf32>) "
        "dimensions = [1] {lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], "
        "partial_reduction = [0, 4096], thread = [0, 4], lane_basis = [[1, 64], [0, 1]], "
        "subgroup_basis = [[1, 16], [0, 1]]}>} (%in: f32, %o: f32) {\n"
        "  %1 = arith.addf %in, %o : f32\n  linalg.yield %1 : f32\n}\n",
        &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    ls_problem p = m->problems[0];
    free(m);
    p.has_ti = true;
    p.ti.has_subgroup_size = p.ti.has_workgroup_size = true;
    p.ti.subgroup_size = 64;
    p.ti.workgroup_size[0] = 1024;
    p.ti.workgroup_size[1] = p.ti.workgroup_size[2] = 1;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ck_assert_msg(ls_derive(&p, d, &dg) == LS_OK, "%s", dg.msg);
    assert_list(d->body_bound, (int64_t[]){1, 1024, 4}, 3);
    assert_list(d->layout.subgroup_tile, (int64_t[]){1, 16, 1}, 3);
    assert_list(d->layout.thread_tile, (int64_t[]){1, 64, 1}, 3);
    assert_list(d->layout.element_tile, (int64_t[]){1, 1, 4}, 3);
    assert_list(d->layout.batch_tile, (int64_t[]){1, 1, 1}, 3);
    assert_list(d->layout.subgroup_strides, (int64_t[]){0, 1, 0}, 3);
    assert_list(d->layout.thread_strides, (int64_t[]){0, 1, 0}, 3);
    ck_assert_int_eq(d->total_iterations, 1);
    /* k = 4*(64*s + lane) + e = 4*tid + e */
    int64_t zero[2] = {0, 0}, x[2];
    bool valid;
    for (int64_t tid = 0; tid < 1024; tid += 37)
        for (int64_t e = 0; e < 4; e++) {
            ls_thread_element(d, &p, tid, zero, zero, e, x, &valid);
            ck_assert(valid);
            ck_assert_int_eq(x[1], 4 * tid + e);
        }
    free(d);
}
END_TEST

START_TEST(warnings_and_padding)
{
    /* 2 lanes x 16 elements for a chunk of 32 on a 64-wide subgroup: duplicated lanes. */
    ls_diag dg;
    ls_module *m = load_text(
        "%r = linalg.reduce ins(%a : tensor<8x100xf32>) outs(%b : tensor<8xf32>) dimensions = "
        "[1] {lowering_config = #iree_gpu.lowering_config<{workgroup = [3, 0], partial_reduction "
        "= [0, 32], thread = [0, 16], lane_basis = [[1, 2], [0, 1]], subgroup_basis = [[1, 1], "
        "[0, 1]]}>} (%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o : f32\n  linalg.yield %1 "
        ": f32\n}\n",
        &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    ls_problem p = m->problems[0];
    free(m);
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ck_assert_msg(ls_derive(&p, d, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(d->sizes_assumed, true);
    ck_assert_int_eq(d->lane_dup, 32);
    ck_assert_int_eq(d->iterations[1], 4);
    ck_assert_int_eq(d->tail[1], 4);   /* 100 = 3 x 32 + 4 */
    ck_assert_int_eq(d->tail[0], 2);   /* 8 = 2 x 3 + 2 */
    ck_assert_int_eq(d->wg_count[0], 3);
    int found = 0;
    for (int i = 0; i < d->n_warnings; i++) {
        found += strstr(d->warnings[i], "ragged tail on d1: 100 is not a multiple of the chunk "
                                        "32, so the last of 4 iterations has 4 valid") != NULL;
        found += strstr(d->warnings[i], "ragged tail on d0: 8 is not a multiple of the "
                                        "workgroup tile 3") != NULL;
        found += strstr(d->warnings[i], "duplicated lanes: lane_basis uses 2 of 64 lanes, so "
                                        "each element is held by 32 lanes") != NULL;
    }
    ck_assert_int_eq(found, 3);
    /* element [7, 99]: last workgroup, last iteration, held by 32 lanes */
    ls_ownership o;
    ck_assert_int_eq(ls_owner_of(d, &p, (int64_t[]){7, 99}, &o, &dg), LS_OK);
    ck_assert_int_eq(o.n_owners, 32);
    ck_assert_int_eq(o.workgroup, 2);
    ck_assert_int_eq(o.iteration, 3);
    ck_assert_int_eq(o.owners[0].lane, 0);
    ck_assert_int_eq(o.owners[1].lane, 2); /* T0|T2|... */
    free(d);

    /* 64 lanes x 4 elements over a chunk of 128: half the lanes idle. */
    m = load_text(
        "%r = linalg.reduce ins(%a : tensor<2x128xf32>) outs(%b : tensor<2xf32>) dimensions = "
        "[1] {lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], "
        "thread = [0, 4], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} "
        "(%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o : f32\n  linalg.yield %1 : f32\n}\n",
        &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    p = m->problems[0];
    free(m);
    d = ls_xcalloc(1, sizeof *d);
    ck_assert_msg(ls_derive(&p, d, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(d->idle_lanes, 32);
    ck_assert_int_eq(d->coverage[1], 256);
    free(d);
}
END_TEST

/* Issue 15, class 3: sizes and tiles near int64's limit (each case was
 * undefined behaviour before: a + b - 1 in a ceiling, an unchecked
 * batch x element product, a nested layout's unchecked tile products). */
static void set_i64(ls_i64_list *l, int n, const int64_t *v)
{
    l->present = true;
    l->n = n;
    memcpy(l->v, v, (size_t)n * sizeof *v);
}

#define TF_TEXT                                                                                  \
    "func.func @f() attributes {translation_info = #iree_codegen.translation_info<pipeline "     \
    "= #iree_gpu.pipeline<TileAndFuse> workgroup_size = [%s, 1] subgroup_size = 64>} {\n"        \
    "%%r = linalg.reduce ins(%%a : tensor<%sx4xf32>) outs(%%b : tensor<%sxf32>) dimensions "      \
    "= [2] {lowering_config = #iree_gpu.lowering_config<{workgroup = [%s, 0], thread = [1, "     \
    "1, 0]}>} (%%in: f32, %%o: f32) {\n  %%1 = arith.addf %%in, %%o : f32\n  linalg.yield %%1 : " \
    "f32\n}\n}\n"

START_TEST(size_overflow_guards)
{
    ls_diag dg;
    /* a chunk of 2^63 - 1 over 64 elements, 2^62 elements a thread */
    ls_module *m = load_text(
        "%r = linalg.reduce ins(%a : tensor<2x64xf32>) outs(%b : tensor<2xf32>) dimensions = "
        "[1] {lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], reduction = [0, "
        "9223372036854775807], thread = [0, 4611686018427387904], lane_basis = [[1, 1], [0, 1]], "
        "subgroup_basis = [[1, 1], [0, 1]]}>} (%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o "
        ": f32\n  linalg.yield %1 : f32\n}\n",
        &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    ls_problem p = m->problems[0];
    free(m);
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ck_assert_int_eq(ls_derive(&p, d, &dg), LS_ERR_LIMIT);
    ck_assert_msg(strstr(dg.msg, "each thread would hold more than 1048576 elements") != NULL,
                  "%s", dg.msg);
    /* a workgroup tile of 2^63 - 1 rows over 2: one workgroup */
    m = load_text(
        "%r = linalg.reduce ins(%a : tensor<2x64xf32>) outs(%b : tensor<2xf32>) dimensions = "
        "[1] {lowering_config = #iree_gpu.lowering_config<{workgroup = [9223372036854775807, 0], "
        "partial_reduction = [0, 64], thread = [0, 1], lane_basis = [[1, 64], [0, 1]], "
        "subgroup_basis = [[1, 1], [0, 1]]}>} (%in: f32, %o: f32) {\n  %1 = arith.addf %in, %o "
        ": f32\n  linalg.yield %1 : f32\n}\n",
        &dg);
    ck_assert_msg(dg.status == LS_OK, "%s", dg.msg);
    p = m->problems[0];
    free(m);
    ls_diag_clear(&dg);
    ck_assert_msg(ls_derive(&p, d, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(d->wg_count[0], 1);
    ck_assert_int_eq(ls_tile_reach(d, &p, 0), INT64_MAX);
    ck_assert_int_eq(ls_tile_reach(d, &p, 1), 64);
    /* 2^63 - 8 rows (one bit each: an i1 result of a broadcast i8), in
     * tiles of 1000 padded to 1024: the last tile's padding passes int64 */
    memset(&p, 0, sizeof p);
    snprintf(p.file, sizeof p.file, "reach.mlir");
    p.rank = 2;
    p.size[0] = INT64_MAX - 7;
    p.size[1] = 1;
    p.is_reduction[1] = true;
    p.n_inputs = 1;
    p.inputs[0].type = LS_ET_I8;
    p.inputs[0].map_n = 1;
    p.inputs[0].map[0] = 1;
    p.acc_type = LS_ET_I1;
    p.combiner = LS_COMB_OR;
    p.out_map_n = 1;
    p.has_config = true;
    set_i64(&p.config.workgroup, 2, (int64_t[]){1000, 0});
    p.config.lane_basis.present = p.config.subgroup_basis.present = true;
    set_i64(&p.config.lane_basis.counts, 2, (int64_t[]){64, 1});
    set_i64(&p.config.lane_basis.mapping, 2, (int64_t[]){0, 1});
    set_i64(&p.config.subgroup_basis.counts, 2, (int64_t[]){1, 1});
    set_i64(&p.config.subgroup_basis.mapping, 2, (int64_t[]){0, 1});
    ls_diag_clear(&dg);
    ck_assert_msg(ls_problem_validate(&p, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(ls_derive(&p, d, &dg), LS_ERR_LIMIT);
    ck_assert_msg(strstr(dg.msg, "d0 of size 9223372036854775800: its last tile with the "
                                 "layout's padding reaches past int64") != NULL,
                  "%s", dg.msg);
    p.size[0] = INT64_C(1) << 62; /* far from the edge: fine */
    ls_diag_clear(&dg);
    ck_assert_msg(ls_derive(&p, d, &dg) == LS_OK, "%s", dg.msg);
    free(d);
    /* a TileAndFuse program: its workgroup_size's product, and its
     * workgroup tile's threads (two tiles of 2^40 rows), pass int64 */
    static const struct {
        const char *wg, *shape, *tiles, *msg;
    } tfs[] = {
        {"4294967296, 4294967296", "64x64", "64, 64",
         "a TileAndFuse workgroup_size whose product overflows int64"},
        {"64, 1", "1099511627776x1099511627776", "1099511627776, 1099511627776",
         "the TileAndFuse workgroup tile's thread count overflows int64"},
    };
    for (int i = 0; i < 2; i++) {
        char text[1024];
        snprintf(text, sizeof text, TF_TEXT, tfs[i].wg, tfs[i].shape, tfs[i].shape, tfs[i].tiles);
        m = load_text(text, &dg);
        ck_assert_msg(dg.status == LS_OK && m->n_problems == 1, "%s", dg.msg);
        d = ls_xcalloc(1, sizeof *d);
        ck_assert_int_eq(ls_derive(&m->problems[0], d, &dg), LS_ERR_LIMIT);
        ck_assert_msg(strstr(dg.msg, tfs[i].msg) != NULL, "%s", dg.msg);
        free(d);
        free(m);
    }
    /* nested layouts: tiles whose product, and strides x tiles whose sum,
     * pass int64 */
    m = load_text("#l = #iree_vector_ext.nested_layout<subgroup_tile = [4611686018427387904], "
                  "batch_tile = [4], outer_tile = [1], thread_tile = [1], element_tile = [1], "
                  "subgroup_strides = [1], thread_strides = [0]>\n",
                  &dg);
    ck_assert_int_eq(dg.status, LS_ERR_LIMIT);
    ck_assert_msg(strstr(dg.msg, "nested_layout: its tiles multiply past int64") != NULL, "%s",
                  dg.msg);
    free(m);
    m = load_text("#l = #iree_vector_ext.nested_layout<subgroup_tile = [4, 1], batch_tile = [1, "
                  "1], outer_tile = [1, 1], thread_tile = [1, 2], element_tile = [1, 1], "
                  "subgroup_strides = [4611686018427387904, 0], thread_strides = [0, "
                  "4611686018427387904]>\n",
                  &dg);
    ck_assert_int_eq(dg.status, LS_ERR_LIMIT);
    ck_assert_msg(strstr(dg.msg, "nested_layout: its strides x tiles add up past int64 (at dim "
                                 "0)") != NULL,
                  "%s", dg.msg);
    free(m);
}
END_TEST

/* The pipeline a translation_info names decides the lowering: IREE's older
 * spelling (LLVMGPUTileAndFuse) is the same pipeline as
 * #iree_gpu.pipeline<TileAndFuse>, and a pipeline lanescope does not lower
 * (LLVMGPUWarpReduction) is refused at its position, never simulated as
 * VectorDistribute. */
#define PIPE_TEXT                                                                                \
    "func.func @f() attributes {translation_info = #iree_codegen.translation_info<%s "           \
    "workgroup_size = [32, 1, 1] subgroup_size = 32>} {\n"                                       \
    "%%r = linalg.reduce ins(%%a : tensor<64x256xf32>) outs(%%b : tensor<256xf32>) dimensions " \
    "= [0] {lowering_config = #iree_gpu.lowering_config<{%s}>} (%%in: f32, %%o: f32) {\n"        \
    "  %%1 = arith.addf %%in, %%o : f32\n  linalg.yield %%1 : f32\n}\n}\n"

#define VD_FOR_MISSING "workgroup = [0, 1]"
START_TEST(pipeline_names)
{
#define TF "workgroup = [0, 128], thread = [0, 4], reduction = [4, 0]"
#define VD                                                                                       \
    "workgroup = [0, 1], partial_reduction = [64, 0], thread = [2, 0], lane_basis = [[32, 1], " \
    "[0, 1]], subgroup_basis = [[1, 1], [0, 1]]"
    static const struct {
        const char *pipeline, *config;
        ls_status st;
        bool tile_and_fuse;
        int col;
        const char *msg;
    } cases[] = {
        {"pipeline = #iree_gpu.pipeline<TileAndFuse>", TF, LS_OK, true, 0, NULL},
        {"pipeline = LLVMGPUTileAndFuse", TF, LS_OK, true, 0, NULL},
        {"pipeline = LLVMGPUVectorDistribute", VD, LS_OK, false, 0, NULL},
        {"pipeline = #iree_gpu.pipeline<VectorDistribute>", VD, LS_OK, false, 0, NULL},
        {"pipeline = LLVMGPUWarpReduction", VD, LS_ERR_INVALID, false, 89,
         "the WarpReduction pipeline: lanescope lowers reductions as IREE's VectorDistribute "
         "and TileAndFuse pipelines do, no other"},
        {"pipeline = #iree_gpu.pipeline<Default>", VD, LS_ERR_INVALID, false, 89,
         "the Default pipeline"},
    };
#undef TF
#undef VD
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        ls_diag dg;
        snprintf(text, sizeof text, PIPE_TEXT, cases[i].pipeline, cases[i].config);
        ls_module *m = load_text(text, &dg);
        ck_assert_msg(dg.status == LS_OK && m->n_problems == 1, "%zu: %s", i, dg.msg);
        ls_derived *d = ls_xcalloc(1, sizeof *d);
        ls_diag_clear(&dg);
        ck_assert_msg(ls_derive(&m->problems[0], d, &dg) == cases[i].st, "%zu: %s", i, dg.msg);
        if (cases[i].st == LS_OK) {
            ck_assert_int_eq(d->tile_and_fuse, cases[i].tile_and_fuse);
            /* 256 columns over 128-column workgroups, or one column each */
            ck_assert_int_eq(d->wg_count[1], cases[i].tile_and_fuse ? 2 : 256);
        } else {
            ck_assert_msg(strstr(dg.msg, cases[i].msg) != NULL, "%zu: %s", i, dg.msg);
            ck_assert_int_eq(dg.line, 1);
            ck_assert_int_eq(dg.col, cases[i].col);
        }
        free(d);
        free(m);
    }
    /* a translation_info that names no pipeline is refused where it is */
    ls_diag dg;
    char text[1024];
    snprintf(text, sizeof text, PIPE_TEXT, "", VD_FOR_MISSING);
    ls_module *m = load_text(text, &dg);
    ck_assert_int_eq(dg.status, LS_ERR_INVALID);
    ck_assert_msg(strstr(dg.msg, "translation_info names no pipeline") != NULL, "%s", dg.msg);
    ck_assert_int_eq(dg.line, 1);
    free(m);
}
END_TEST

/* ---- property test: ownership over random valid configs ---- */

START_TEST(ownership_property)
{
    uint64_t rng = 2026;
    int checked = 0;
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    for (int iter = 0; iter < 300; iter++) {
        ls_problem p;
        if (!random_problem(&rng, &p, 12, 160))
            continue;
        ls_diag dg;
        ls_diag_clear(&dg);
        REQUIRE(ls_derive(&p, d, &dg) == LS_OK, "%s", dg.msg);
        int64_t regs = ls_nl_registers(&d->layout);
        if (regs * d->workgroup_size > 100000)
            continue;
        /* the last workgroup and the last iteration: where ragged tails live */
        int64_t wg[LS_MAX_RANK], it[LS_MAX_RANK];
        ls_workgroup_coord(d, d->total_workgroups - 1, wg);
        ls_iteration_coord(d, &p, d->total_iterations - 1, it);
        int64_t lo[LS_MAX_RANK], ext[LS_MAX_RANK], total = 1;
        for (int i = 0; i < p.rank; i++) {
            int64_t step = p.is_reduction[i] ? d->chunk[i] : d->wg_tile[i];
            int64_t pos = p.is_reduction[i] ? it[i] : wg[i];
            lo[i] = pos * step;
            int64_t hi = lo[i] + step < p.size[i] ? lo[i] + step : p.size[i];
            ext[i] = hi - lo[i];
            total *= ext[i];
        }
        int64_t *count = ls_xcalloc((size_t)total, sizeof *count);
        for (int64_t tid = 0; tid < d->workgroup_size; tid++)
            for (int64_t r = 0; r < regs; r++) {
                int64_t x[LS_MAX_RANK];
                bool valid;
                ls_thread_element(d, &p, tid, wg, it, r, x, &valid);
                if (!valid)
                    continue;
                int64_t lin = 0;
                for (int i = 0; i < p.rank; i++) {
                    REQUIRE(x[i] >= lo[i] && x[i] < lo[i] + ext[i], "x[i] >= lo[i] && x[i] < lo[i] + ext[i]");
                    lin = lin * ext[i] + (x[i] - lo[i]);
                }
                count[lin]++;
            }
        int64_t dup = d->lane_dup * d->subgroup_dup;
        for (int64_t lin = 0; lin < total; lin++) {
            REQUIRE(count[lin] == dup, "iter %d: element %lld held %lld times, want %lld",
                          iter, (long long)lin, (long long)count[lin], (long long)dup);
            int64_t x[LS_MAX_RANK], rem = lin;
            for (int i = p.rank - 1; i >= 0; i--) {
                x[i] = lo[i] + rem % ext[i];
                rem /= ext[i];
            }
            ls_ownership o;
            REQUIRE(ls_owner_of(d, &p, x, &o, &dg) == LS_OK, "%s", dg.msg);
            REQUIRE((o.n_owners) == (dup), "o.n_owners != dup");
            REQUIRE((o.workgroup) == (d->total_workgroups - 1), "o.workgroup != d->total_workgroups - 1");
            REQUIRE((o.iteration) == (d->total_iterations - 1), "o.iteration != d->total_iterations - 1");
            for (int k = 0; k < o.n_listed; k++) { /* inverse(forward) = identity */
                int64_t y[LS_MAX_RANK];
                bool valid;
                ls_thread_element(d, &p, o.owners[k].tid, o.wg_coord, o.it_coord, o.reg, y,
                                  &valid);
                REQUIRE(valid, "valid");
                for (int i = 0; i < p.rank; i++)
                    REQUIRE((y[i]) == (x[i]), "y[i] != x[i]");
            }
        }
        free(count);
        checked++;
    }
    free(d);
    ck_assert_int_ge(checked, 120);
}
END_TEST

static Suite *layout_suite(void)
{
    Suite *s = suite_create("layout");
    TCase *tc = tcase_create("layout");
    tcase_add_test(tc, thread42_delinearize);
    tcase_add_test(tc, delinearize_inverse);
    tcase_add_test(tc, subgroup_order);
    tcase_add_test(tc, nested_64x64);
    tcase_add_test(tc, nested_roundtrip);
    tcase_add_test(tc, example1_derived);
    tcase_add_test(tc, example2_derived);
    tcase_add_test(tc, example3_derived);
    tcase_add_test(tc, reference_multiple_stores);
    tcase_add_test(tc, warnings_and_padding);
    tcase_add_test(tc, ownership_property);
    tcase_add_test(tc, size_overflow_guards);
    tcase_add_test(tc, pipeline_names);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(layout_suite)
