/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Linked with one layer whole and the layers below it: a call upward is an
 * undefined symbol, so the build fails (src/LAYER/meson.build: layercheck_LAYER). */
int main(void)
{
	return 0;
}
