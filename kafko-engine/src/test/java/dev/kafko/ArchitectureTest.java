package dev.kafko;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The layering of the engine, checked by the build (see docs/ARCHITECTURE.md). */
@AnalyzeClasses(packages = "dev.kafko", importOptions = {ImportOption.DoNotIncludeTests.class, ImportOption.DoNotIncludeJars.class})
class ArchitectureTest {

    @ArchTest
    static final ArchRule storageNeverImportsTheBroker = noClasses()
            .that().resideInAnyPackage("dev.kafko.internal.log..", "dev.kafko.internal.io..")
            .should().dependOnClassesThat().resideInAPackage("dev.kafko.internal.broker..")
            .because("storage knows nothing of actors, producers or consumers");

    @ArchTest
    static final ArchRule ioNeverImportsTheLog = noClasses()
            .that().resideInAPackage("dev.kafko.internal.io..")
            .should().dependOnClassesThat().resideInAPackage("dev.kafko.internal.log..")
            .because("the file-I/O seam knows nothing of records or segments");
}
