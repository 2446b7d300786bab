# shellcheck shell=sh
# Where Debian's 6.1 kernel sources are, and how an in-tree driver is made
# to build out of tree. Sourced by module/prepare-src (in the DKMS package
# too) and by vm/lib.sh.
# shellcheck disable=SC2034 # the scripts that source this read them

# the package, and the top directory of its tarball
LINUX_SOURCE=linux-source-6.1
LINUX_SOURCE_TARBALL=/usr/src/$LINUX_SOURCE.tar.xz
# the same sources unpacked in place, where a user keeps them so
LINUX_SOURCE_TREE=/usr/src/$LINUX_SOURCE
# the Intel Ethernet drivers' directory in a kernel tree
INTEL_DRIVERS=drivers/net/ethernet/intel

# out_of_tree MAKEFILE: the driver's kbuild Makefile builds its module
# whatever its CONFIG_ option says (obj-$(CONFIG_IGB) += becomes obj-m +=)
out_of_tree() {
	# shellcheck disable=SC2016 # a literal $(CONFIG_...)
	sed -i 's/^obj-$(CONFIG_[A-Z0-9_]*) += /obj-m += /' "$1"
}
