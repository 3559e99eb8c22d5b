package dev.kafko.spring;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import org.springframework.boot.autoconfigure.AutoConfiguration;

@AnalyzeClasses(packages = "dev.kafko.spring", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule starterUsesOnlyThePublicEngineApi = noClasses().that().resideInAPackage("dev.kafko.spring..")
            .should().dependOnClassesThat().resideInAPackage("dev.kafko.internal..");

    @ArchTest
    static final ArchRule autoConfigurationsAreFinal = classes().that().areAnnotatedWith(AutoConfiguration.class)
            .should().haveModifier(com.tngtech.archunit.core.domain.JavaModifier.FINAL);

    @ArchTest
    static final ArchRule annotationsAndSupportDoNotReachIntoAutoConfiguration = noClasses()
            .that().resideInAnyPackage("dev.kafko.spring.core..", "dev.kafko.spring.listener..",
                    "dev.kafko.spring.support..", "dev.kafko.spring.annotation..", "dev.kafko.spring.config..")
            .should().dependOnClassesThat().resideInAPackage("dev.kafko.spring.autoconfigure..");
}
