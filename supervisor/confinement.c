/* confinement.c — see confinement.h. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "confinement.h"
#include "shown.h"

static json_t *items_json(const struct sbx_report_item *items, int n)
{
	json_t *o = json_object();
	for (int i = 0; o && i < n; i++) {
		const struct sbx_report_item *it = &items[i];
		json_t *e = json_object();
		if (!e || json_object_set_new(o, it->name, e) < 0) {
			json_decref(o);
			return NULL;
		}
		if (it->by)
			json_object_set_new(e, "by", json_string(it->by));
		for (int k = 0; k < it->n_num; k++)
			json_object_set_new(e, it->num[k].key,
			                    json_integer((json_int_t)(it->num[k].value > INT64_MAX ?
			                                                      INT64_MAX :
			                                                      it->num[k].value)));
		if (it->dropped[0])
			json_object_set_new(e, "dropped", json_string(it->dropped));
		if (it->alternative)
			json_object_set_new(e, "alternative", json_true());
	}
	return o;
}

json_t *confinement_json(const struct sbx_confinement *c)
{
	json_t *limits = items_json(c->limits, c->n_limits);
	json_t *walls = items_json(c->walls, c->n_walls);
	if (!limits || !walls) {
		json_decref(limits);
		json_decref(walls);
		return NULL;
	}
	return json_pack("{s:o, s:o}", "limits", limits, "walls", walls);
}

/* The profiles already named: a short list, one per profile in use. */
static char **told;
static size_t n_told;

void confinement_notice(const char *who, const char *profile, const struct sbx_confinement *c,
                        FILE *out)
{
	if (!sbx_confinement_dropped_limit(c) && !sbx_confinement_weaker_wall(c))
		return;
	for (size_t i = 0; i < n_told; i++)
		if (!strcmp(told[i], profile))
			return;
	char **t = realloc(told, (n_told + 1) * sizeof *t);
	if (t) {
		told = t;
		if ((told[n_told] = strdup(profile)))
			n_told++;
	}
	for (int i = 0; i < c->n_limits; i++)
		if (c->limits[i].dropped[0])
			shown_fprintf(out, "%s: profile %s runs without its %s limit: %s\n", who,
			              profile, c->limits[i].name, c->limits[i].dropped);
	for (int i = 0; i < c->n_walls; i++)
		if (c->walls[i].dropped[0])
			shown_fprintf(out, "%s: profile %s builds its %s wall %s%s: %s\n", who,
			              profile, c->walls[i].name,
			              c->walls[i].by ? "by " : "without it",
			              c->walls[i].by ? c->walls[i].by : "", c->walls[i].dropped);
}
